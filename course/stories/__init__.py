"""What the scripted model does in each lesson's main story, when no real model is configured.

Each story is a *rule*: it reads the conversation and answers as a careful model would,
so a learner who changes the question still gets a sensible reply. With a real model
these rules are not used; the notebooks assert only what any competent model does.
"""
