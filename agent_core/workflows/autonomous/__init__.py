"""CodeMie's Autonomous workflows: a supervisor chat whose tools are the workflow's assistants as
sub-agents. It plans, delegates each sub-task to one assistant, reads the result, and goes on or
finishes; each delegation is a step of the run (``steps``), bounded by the workflow's limits."""
