"""Settings for every pytest run, notebooks included (kernels inherit this environment)."""

from course import offline

offline.scripted()  # the scripted model and approver, local model files, no real model's key
