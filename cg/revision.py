"""Ruling R32: a campaign keeps the rules revision it was started under.

The first event records the revision (a log without one is revision 1, the first release);
`plcg rules-upgrade` records the move to CURRENT from the next firefight's 2.1 on. Every decision
that changed between revisions asks `on(state, SWITCH)`: one small named switch per change, each
listed in the README ("Rules revisions"), so an old campaign file replays and audits as it did.
"""
from __future__ import annotations

CURRENT = 3  # the revision a new campaign starts under

# switch -> (revision that brings it, what changes): the README lists each one
SWITCHES: dict[str, tuple[int, str]] = {
    "per_side_purchase_numbers": (2, "2.3: purchase numbers count per side (the Allies' first I1 is I1-1); "
                                     "unit ids repeat across sides and are keyed by side"),
    "leadership_from_units": (2, "3.17, 3.21: Leadership is the modifier of the best leader in the unit's hex "
                                 "(rulings R30, R33); a typed --leadership is taken only where the unit has no "
                                 "recorded hex, and one contradicting the OB is refused"),
    "redeployment_isolated": (2, "3.21: +1 for a unit Isolated (an Isolated Location, or left Isolated by "
                                 "3.216) 6 or more hexes from the nearest friendly MLR (ruling R1; revision 1: "
                                 "more than 6), and no -1 for its Isolated pocket as if it were a friendly MLR"),
    "redeployment_results": (2, "3.21: Redeployment Table results reach the unit: Replaced/Reduced change its "
                                "counter (counter table, ruling R34; note 2: no lower counter = Casualty "
                                "Reduced), a reduced HS/crew is eliminated; units outside a friendly MLR lose "
                                "HIP (3.212-3.217) and concealment (3.214, 3.216, 3.217; 3.215 keeps it)"),
    "hardening_by_table": (2, "3.43-3.45: Battle Hardening changes the counter by the counter table (ruling "
                              "R34; `--to` only where the table lacks it); an Elite MMC turns Fanatic, its counter "
                              "stays; 3.43 needs a Hero (`end --hero`) to combine with an MMC, or a heroic leader"),
    "repair_rules": (2, "3.46: a failed malfunction/Low Ammo repair keeps the malfunction (owed again next "
                        "RePh); no DRM on a malfunction or Low Ammo repair; only a vehicle is immobilized, and it is "
                        "repaired only in a friendly MLR not adjacent to an enemy CTHC"),
    "leaders_lost_evacuated": (2, "3.45: leaders evacuated at 3.32 count among the leaders lost in the firefight "
                                  "and the RePh"),
    "oba_air_expended": (2, "CG7: a used OBA module (its OBA and radio/phone counters) and every Air Support RG "
                            "bought for the firefight, used or not, leave the OB when the firefight ends"),
    "one_redeployment": (2, "3.211 / ruling R28: a unit that redeployed in the RePh (3.2) does not redeploy "
                            "again at 2.5 of the next firefight (the mark lasts until 2.5 is left)"),
    "setup_limits": (2, "2.32: on-map setup only inside the friendly MLR, the Initial Firefight included (never "
                        "in the enemy's CTHC); 2.33: the leaders of an RG bought In Reserve keep its 7 hexes too"),
    "weather_every_firefight": (2, "2.2 / ruling R27: every firefight visits 2.2 and records its weather: the "
                                   "card's `weather` for it, else the previous firefight's (revision 1: the "
                                   "Initial Firefight only)"),
    "moves_first_after_setup": (2, "2.41: in a Dual Attack the moves-first dr is made after all setup, at 2.6 "
                                   "(`plcg moves-first`), not with the setup dr at 2.4"),
    "end_checks": (2, "2.9: one hex cannot be given to both sides by `end --control` (bad input); an "
                      "`end --terrain` item is one of the one vocabulary (cg/items.py), kept in its form "
                      "KEY[:SIDE][:FACTORS] (an unknown word is bad input; revision 1 kept any word as typed)"),
    "patrol_rules": (2, "2.72-2.74: the Detection and Return DRM come from the patrol's units (rulings R26, "
                        "R30, R33: size in HS equivalents, Elite/Inexperienced from the RGs' quality, the leader's "
                        "counter, SW PP from the counter table, enemy units adjacent to the mission hex from "
                        "recorded hexes), the whole list for the Return roll too; only a Corporal, Sergeant or "
                        "Lieutenant leads; results strike the units by Random Selection (ruling R29)"),
    "redeployment_limits": (2, "3.2: a unit in the enemy MLR, Uncontrolled terrain or No Man's Land redeploys to "
                               "the nearest friendly CTHC (3.214, 3.216, 3.217); an Isolated unit may, not must, "
                               "redeploy (3.215); an Immobilized vehicle does not redeploy"),
    "clearance_rules": (2, "3.52: an Eliminated result removes rubble as PL's table says (ruling R38; revision "
                           "1 left a Trailbreak); the Original-6 Casualty Reduction only against a Known minefield "
                           "or Panji, not hidden mines"),
    "strategic_grows": (2, "1.4: hexes the campaign gives rubble, a pillbox, an entrenchment (foxhole, trench, "
                           "A-T ditch) or an emplaced Gun become Strategic Terrain: `end --control` may name them and "
                           "they count for CTHC and MLR; they carry no TVP (ruling R46)"),
    "fortify_rules": (2, "2.38: a fortification goes inside the friendly MLR (I items also in an Isolated "
                         "Location), never in rubble except a Set DC (B24.5, note 8); HIP is priced by what hides "
                         "(note 3: a Gun at its crew's price, a SW hides with its possessor);"
                         " a Cave Complex after four caves (note 9); `setup --hip` needs "
                         "a HIP bought for the unit, except a "
                         "Gun in the Initial Firefight (CG3) or a unit still HIP from the last firefight (3.24)"),
    "ammunition_shortage": (2, "3.211/1.4: a unit ending the RePh Isolated has Ammunition Shortage for the "
                               "next firefight only: the mark is lifted when that firefight ends"),
    "option_a_order": (2, "2.5 Option A: the Defender redeploys first (no Defender redeployment once the "
                          "Attacker has made one), and each unit only to another CTHC than the one it stands in"),
    "setup_order": (2, "2.6: the side that sets up first (2.41) sets up before the other: once the second side "
                       "has set up a unit, the first sets up no more"),
    "generated_leader_placed": (2, "3.45: a generated leader placed on map (`leader --generated --hex`) goes "
                                   "to a hex holding a friendly non-Isolated MMC on map (a side with no recorded "
                                   "hexes is taken at its word, ruling R33; under revision 1 the hex is recorded as typed)"),
    "encircled_kept": (2, "3.17: a unit that passes its 1TC stays Encircled (revision 1 removed the marker)"),
    "cg_objectives": (3, "1.3: a CG Objective of the card's `[victory]` fulfilled when the firefight it names is "
                         "complete with its RePh ends the CG, and the CG's end records the winner the card's "
                         "Victory Conditions give (ruling R74)"),
    # revision 3 (issue 24, items 1-12: a referee's third round)
    "reserve_ends": (3, "2.33: a unit In Reserve is In Reserve for the firefight it was bought for only: set up on "
                        "map it is on map after that firefight (a Gun there counts as emplaced, 1.4), kept off map it "
                        "sets up normally in a later firefight"),
    "option_a_in_place": (3, "2.5 Option A / 3.34: a unit left on map by the last firefight stays in place at 2.6 "
                             "(`setup` elsewhere is refused); it moves by a 2.5 redeployment only"),
    "hip_in_place": (3, "3.24 / 3.212 / 3.215: a unit still HIP from the last firefight stays HIP only in its own "
                        "Location and only if it ended that firefight in a friendly MLR, not Isolated"),
    "option_b_setup": (3, "2.5 Option B: every unit in a friendly MLR sets up there, one that redeployed at 3.2 "
                          "included (ruling R28 holds for Option A only)"),
    "isolated_drm": (3, "3.21: an Isolated unit's distance to the nearest friendly MLR leaves out Isolated "
                        "Locations and No Man's Land, and a unit in an Isolated Location (3.215, inside the enemy "
                        "MLR) takes the +2 for a unit in the enemy MLR"),
    "moves_first_closes_setup": (3, "2.41: in a Dual Attack the moves-first dr ends setup: no unit sets up "
                                    "after it (ruling R54)"),
    "cthc_per_hex": (3, "1.4, 3.214, 3.216, 2.5 Option A: a CTHC is the cluster of one controlled Strategic "
                        "Terrain hex (its hexes within 2, less No Man's Land), so CTHCs overlap; 'nearest' and "
                        "'another' CTHC are read per such cluster (ruling R53)"),
    "rg_ownership": (3, "2.37: in the first firefight its RG takes part in, a leader sets up with a MMC/AFV and a "
                        "SW/Gun with a unit of its own RG (in a hex where one has set up)"),
    "patrol_team": (3, "2.72: the patrol's units within 10 hexes of each other (not of the mission hex); a unit "
                       "in a patrol owing its Return goes on no other; 2.73: a water hex is no mission hex "
                       "(ruling R56)"),
    "patrol_quality": (3, "2.74: Inexperienced when an MMC's counter (counter table) or its RG is Green or "
                          "Conscript; Elite only when both the RG and the counter are Elite (ruling R55)"),
    "patrol_smc_wounded": (3, "2.74 / ruling R29: a Reduced result on a leader wounds it (a wounded one is "
                              "eliminated), as Casualty Reduction does (A15, A17)"),
    "leader_rank_from_card": (3, "2.72: a leader's rank is the card's `[counters]` `rank` only; the counter table's "
                                 "rank convention no longer bars a 9-1 or better from patrols (ruling R52)"),
    "pbem_pace": (3, "play by email (ruling R71): `next` leaves a step at once, provisionally, except at 2.3 (the "
                     "other side's continuing confirms it, its rejection undoes it); at 2.3, and wherever only the "
                     "other side still owes something, `next` is proposed and the other side acts meanwhile, its "
                     "own `next` confirming it (a proposed end or determination too); a determination without "
                     "dice is decided at once"),
    # play by email (issue 25, items 6-14)
    "shared_facts": (3, "play by email (ruling R45): option, rubble, flame, position, rules-upgrade, a typed "
                        "weather and night are shared facts: proposed by one side, in effect when the other confirms them"
                        "; with pbem_pace in a two-party campaign, outside 2.3, in effect at once, provisionally, "
                        "the other side's next command confirming them (ruling R73)"),
    "two_party_order": (3, "play by email, two-party dice (ruling R67): one open commitment per command and side, "
                           "reveals in the order committed; a reveal withheld past the committer's next signature "
                           "may be claimed by the other side (`plcg claim`)"),
    "attack_seal": (3, "play by email, sealed secrets (ruling R47): every side seals its Attack Option choice, yes "
                       "or no, at 2.3 of a firefight after the first (a seal of its own kind) and opens it at 2.4"),
    "sign_once": (3, "play by email: a side's signature over nothing new (the head is its own signature) is "
                     "refused"),
    # ---- revision 3 (issue 24, items 13-23) ----
    "encircled_abandoned": (3, "3.17: an Immobile AFV/vehicle whose inherent crew fails its 1TC is left Immobile "
                               "and Abandoned, not eliminated; a failed 1TC names its row as 'morale + 1 or more'"),
    "reph_losses_cvp": (3, "3.11 / ruling R58: the losses the ledger decides in the RePh (3.17, 3.19, 3.21, 3.52) "
                           "add their CVP (ruling R39's values) to the firefight's, so 1.31, 2.12 and 3.44 see them"),
    "hardening_card_quality": (3, "3.43/3.44 EXC: whether an MMC is Elite (turns Fanatic) is the class the CG Card "
                                  "gives its RG while it is a counter the RG lists, not the counter table's"),
    "fortify_notes": (3, "2.38 notes 5, 8, 9 and CG12: a Fortified Building only in a building hex; a Set DC only in a "
                         "building/rubble/bridge/pillbox/trench Location of a friendly CTHC; four caves for each Cave "
                         "Complex; Booby Traps only on a card that allows them"),
    "fortify_placed_at_setup": (3, "2.38: a fortification bought without --hex is placed at 2.6 (`plcg fortify "
                                   "SIDE KIND --hex HEX`), under the limits of its purchase"),
    "repair_drm_from_ob": (3, "3.46/3.461: Leadership of a Disabled/Immobilized repair is the leader's in the item's "
                              "hex, from the OB (rulings R30, R33); the stated drm are the penalties only (0 or more)"),
    "clearance_casualty_reduction": (3, "3.52 dagger: the Casualty Reduction of one MMC is owed before 3.52 is "
                                        "left and reaches the unit (`casualties SIDE --reduced UNIT`, in the "
                                        "rule's order of classes)"),
    "disease_replacements": (3, "3.41: the squads the Disease & Starvation dr strikes are owed before 3.41 is left "
                                "(`disease SIDE --replaced UNIT`), Isolated units first, each ELR Replaced"),
    "regroup_and_heroes": (3, "3.42: same-type half-squads in one Friendly MLR recombine when 3.42 is left; 3.43: a "
                              "Hero combines only with an MMC in its MLR, and leaving 3.43 removes Heroes beyond one"),
    "attack_oba_this_reph": (3, "2.351 / ruling R14 revised: the -1 goes with the Attack Option bought in this 2.3 "
                                "whatever the order: an OBA DR made before it is read again with the -1"),
    "rubble_not_in_water": (3, "B24.121 / Table 23: rubble that falls into a water hex places none there, and "
                               "`end --terrain HEX=rubble` on a water hex is refused"),
    "mmc_crews": (3, "3.43-3.45: a crew is an MMC (ASL A1.1) for Battle Hardening (3.43, 3.44) and for the 3.45 "
                     "limit on leaders generated (MMC on board), as it already was for placing one; revisions "
                     "1-2 counted squads and half-squads only there"),
    "immobilized_stays": (3, "3.2/3.23 (ruling R48): an Immobilized vehicle owes no redeployment (3.211: it cannot "
                             "move); it stays, Isolated outside a friendly MLR (3.216), wrecked in the enemy MLR "
                             "(3.214) or, after all redeployment, beyond 3 hexes of a friendly MMC/AFV outside a "
                             "friendly MLR (3.23)"),
    "judged_before_roll": (3, "ruling R49: a command whose legality depended on its own roll is judged before it "
                              "rolls: `leader --commissar` takes the Commissar only where the row has a *, else the "
                              "roll stands as a plain leader DR; `redeploy --counter` is checked against the counter "
                              "table before the roll"),
    "entry_not_set_up": (3, "2.34/2.6 (ruling R50): a unit of an RG bought to enter (`--mode entry`) does not set up on "
                            "the map at 2.6"),
    "sealed_views_agree": (3, "play by email, sealed secrets (ruling R47): a shared fact records only what both "
                              "copies know: an Idle Firefight's 2.41 determination lists no lost patrols or Air Support"),
    "setup_first_begins": (3, "2.6 (ruling R51): the side that sets up second may not begin while the side that sets "
                              "up first has set up no unit it could set up"),
}


def revision(st) -> int:
    """The revision in force at the state's firefight (an upgrade takes effect at its 2.1)."""
    rev = st.rules_revision
    for ff, to in st.rules_upgrades:
        if st.firefight >= ff:
            rev = to
    return rev


def on(st, switch: str) -> bool:
    return revision(st) >= SWITCHES[switch][0]
