"""The rules package: what the rules decide. `revisions` holds `Rules`, the current revision's decisions
that changed between revisions, and its older variants `Revision2`, `Revision1` (ruling R32), with
`rules_for(state)`; `questions` the questions the steps ask of the units and the map (who owes a 3.2
redeployment, where a SW stands, who wins on CVP)."""
from cg.rules.revisions import (  # noqa: F401
    AHEAD_ROLLS, CONVENTIONS, CURRENT, DUAL_DETERMINED, END_CVP_CHECK, LEADERS_PER_RG, MARKS_HELD, Revision1, Revision2,
    Rules, conventions, revision, rules_for)
from cg.rules.questions import (  # noqa: F401
    CVP_RULES, ORDER, REPAIRABLE, attacker_for_redeployment, cannot_redeploy, carried_by, clear_refusal, clearable,
    counter_table, cthc_clusters, defender_may_redeploy_2_5, enters_only, heroes_in_mlr, immobilized, mlr_of,
    mmc_in_play, nearest_cthc, nearest_cthc_refusal, nearest_friendly_hex, redeployment_attacker_at_2_5,
    redeployment_owed, repair_place_refusal, repair_refusal, situation_of, stranded_fate)
