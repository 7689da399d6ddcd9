"""An alias kept while cli.py moves to `cg.rules` (issue 33): the revisions are `cg.rules.revisions`."""
from cg.rules.revisions import CONVENTIONS, CURRENT, END_CVP_CHECK, LEADERS_PER_RG, conventions, revision  # noqa: F401
