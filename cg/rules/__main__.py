"""`python -m cg.rules` prints docs/revisions.md's table of the decisions that changed."""
from cg.rules.revisions import markdown_table

print(markdown_table())
