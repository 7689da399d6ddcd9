"""The current schema version of every event type.

Kept apart from the event classes so that reading a log (status, replay) knows which stored events
need upcasting without importing the classes and cattrs; events/types.py takes its versions from
here, so there is one table.
"""

VERSIONS: dict[str, int] = {
    "attack_announced": 1,  # ruling R109: the sealed yes/no Attack Option choice made as 2.3 is left
    "attack_bought": 1,
    "campaign_started": 2,  # 2: rules_revision (ruling R32)
    "casualties_added": 1,
    "casualty_reduced": 1,
    "cg_ended": 1,
    "clearance_rolled": 1,
    "conceded": 1,
    "dice_answered": 1,
    "dice_chain": 1,  # ruling R83 (rules revision 3)
    "dice_committed": 1,
    "dice_revealed": 1,
    "cp_replenished": 1,
    "disease_rolled": 1,
    "disease_replaced": 1,
    "elr_rolled": 1,
    "encircled_tested": 1,
    "evacuation_rolled": 1,
    "fact_confirmed": 1,
    "fact_proposed": 1,
    "fact_rejected": 1,
    "firefight_determined": 1,
    "firefight_ended": 1,
    "fortified": 1,
    "fortification_placed": 1,
    "half_squads_recombined": 1,
    "head_signed": 1,
    "heroes_removed": 1,
    "sealed": 1,
    "seals_revealed": 1,
    "isolated_marked": 1,
    "units_stranded": 1,  # ruling R48 (rules revision 3)
    "leader_rolled": 1,
    "leaders_rolled": 1,
    "moves_first_rolled": 1,
    "night_set": 1,
    "oba_rolled": 1,
    "patrol_given_up": 1,
    "patrol_resolved": 1,
    "patrol_returned": 1,
    "patrols_bought": 1,
    "promotion_rolled": 1,
    "recall_rolled": 1,
    "redeployed": 1,
    "redeployment_done": 1,  # ruling R85 (2.5 Option A)
    "redeployment_option": 1,
    "repair_rolled": 1,
    "reverted": 1,
    "rg_bought": 1,
    "rules_upgraded": 1,
    "san_adjusted": 1,
    "shock_resolved": 1,
    "step_left": 1,
    "terrain_changed": 1,
    "tvp_awarded": 1,
    "unit_hardened": 1,
    "unit_positioned": 1,
    "unit_set_up": 1,
    "weather_set": 1,
}
