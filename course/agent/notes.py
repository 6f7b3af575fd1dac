"""What the loop itself writes into the conversation (lesson 2)."""

# Notes the application adds as user messages (the controlled finish) start with this, so that
# whoever reads the conversation (the scripted model's stories too) can tell them from the customer.
APP_NOTE = "(Note from the application, not from the customer:"
