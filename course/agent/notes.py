"""What the loop itself writes into the conversation (lesson 2)."""

# Notes the application adds as user messages (the controlled finish) start with APP_NOTE, so that
# whoever reads the conversation (the scripted model's stories too) can tell them from the customer.
from course.conversation import APP_NOTE

REPEAT_NOTE = ("Not run: you already called {name} with these arguments in this conversation, and the result "
               "is above. Change the arguments, or answer the user with what you have.")

FINISH_NOTE = (APP_NOTE + " {why}. Do not call any more tools. Answer the "
               "customer now with what you found so far, and say what you could not check.)")
