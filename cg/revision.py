"""Ruling R32: a campaign keeps the rules revision it was started under.

The first event records the revision (a log without one is revision 1, the first release);
`plcg rules-upgrade` records the move to CURRENT from the next firefight's 2.1 on. Every decision
that changed between revisions reads one named field of the revision record in force,
`revision.of(state).SWITCH`: one small switch per change, each with the revision that brings it and
what it changes. The table of docs/revisions.md is generated from this record (`python -m cg.revision`),
and tests/test_revision.py checks that it is.
"""
from __future__ import annotations

import attrs

CURRENT = 3  # the revision a new campaign starts under

# The ledger's conventions (issue 38): what it names and checks beside the rules, recorded as `conventions`
# in the first event of a campaign started since; never changed by `rules-upgrade`. A campaign without it is
# decided as it always was (its leader ids, its `end` commands), so an old log replays and audits unchanged.
CONVENTIONS = 1  # what a new campaign records
LEADERS_PER_RG = 1  # a leader a 2.36 DR gives is numbered within its RG per side (I1-2.L1), a 3.45 one within its RePh
END_CVP_CHECK = 1  # `end` refuses a CVP lost below the CVP of the units it lists lost (A26.2, ruling R39)


def conventions(st, since: int) -> bool:
    """Whether the campaign was started under the ledger's conventions `since` or later (docs/revisions.md)."""
    return (st.conventions or 0) >= since


def switch(since: int, text: str):
    """A field of the record: on from revision `since`; `text` is its row in docs/revisions.md."""
    return attrs.field(default=False, metadata={"since": since, "text": text})


@attrs.frozen(slots=True)
class Rules:
    """The switches of ruling R32, each True under a revision that has the change."""

    per_side_purchase_numbers: bool = switch(2, (
        "2.3: purchase numbers count per side (the Allies' first I1 is I1-1, not I1-2 after an Axis I1); "
        'unit ids then repeat across sides, so units are named `SIDE UNIT` / `SIDE:UNIT` everywhere'))
    leadership_from_units: bool = switch(2, (
        "3.17, 3.21: Leadership is the modifier of the best leader in the unit's hex (rulings R30, R33); "
        '`--leadership` is taken, and recorded as typed, only where the unit has no recorded hex; a typed'
        ' value contradicting the OB is refused (exit 3)'))
    redeployment_isolated: bool = switch(2, (
        '3.21: +1 for a unit Isolated (in an Isolated Location, or left Isolated by 3.216) 6 or more '
        'hexes from the nearest friendly MLR (ruling R1; revision 1 needed more than 6), and no -1 for '
        'the Isolated pocket as if it were a friendly MLR'))
    redeployment_results: bool = switch(2, (
        "3.21: Replaced and Reduced change the unit's counter (counter table, ruling R34, or `redeploy "
        '--counter`; note 2: no lower counter means Casualty Reduced), a reduced HS or crew is '
        'eliminated, a leader wounded; outside a friendly MLR HIP is lost (3.212-3.217) and concealment '
        'too except when Isolated (3.215)'))
    hardening_by_table: bool = switch(2, (
        '3.43-3.45: Battle Hardening changes the counter by the counter table (ruling R34; `harden --to` '
        'only where the table lacks it, a different one is refused); an Elite MMC turns Fanatic and keeps'
        ' its counter; 3.43 needs a heroic leader (hardening itself) or a Hero (`end --hero`) for an MMC '
        'to combine with, each used once'))
    repair_rules: bool = switch(2, (
        "3.46: a failed malfunction/Low Ammo repair keeps the malfunction (owed again at the next RePh's "
        '3.46); a malfunction or Low Ammo repair takes no DRM; only a vehicle is Immobilized, and it is '
        'repaired only in a friendly MLR not adjacent to an enemy CTHC'))
    leaders_lost_evacuated: bool = switch(2, (
        '3.45: leaders evacuated at 3.32 count among the leaders lost in the firefight and the RePh'))
    oba_air_expended: bool = switch(2, (
        'CG7: a used OBA module (its OBA and radio/phone counters, `end --oba-used`) and every Air '
        'Support RG bought for the firefight, used or not, leave the OB when the firefight ends (`oob`: '
        'expended)'))
    one_redeployment: bool = switch(2, (
        '3.211 / ruling R28: a unit that redeployed at 3.2 does not redeploy again at 2.5 of the next '
        'firefight'))
    setup_limits: bool = switch(2, (
        "2.32: a unit sets up inside its friendly MLR, in the Initial Firefight too (never in the enemy's"
        ' CTHC); 2.33: the leaders of an RG bought In Reserve keep its 7 hexes too'))
    weather_every_firefight: bool = switch(2, (
        "2.2 / ruling R27: every firefight visits 2.2 and records its weather, by default the card's "
        "`weather` for it, else the previous firefight's"))
    moves_first_after_setup: bool = switch(2, (
        '2.41: in a Dual Attack `determine` makes the setup dr only; the moves-first dr is `plcg moves-'
        'first`, owed at 2.6 after all setup'))
    end_checks: bool = switch(2, (
        '2.9: `end --control` may not give one hex to both sides (exit 2); an `end --terrain` item is one'
        ' of the vocabulary (`cg/items.py`: the words `fortify`, `clear` and `map` use), kept as '
        '`KEY[:SIDE][:FACTORS]`; an unknown word is bad input (exit 2, naming the items; revision 1 kept '
        'any word as typed)'))
    patrol_rules: bool = switch(2, (
        "2.72-2.74: the Detection and the Return DRM come from the patrol's units (rulings R26, R30, "
        "R33): size in HS equivalents, Elite/Inexperienced from the RGs' quality, Leadership from the "
        "leader's counter, SW PP from the counter table, enemy units adjacent to the mission hex from "
        'recorded hexes, No Moon/Full Moon and PTO from the card (when it has those keys); the whole list'
        ' applies to the Return roll; a contradicting typed flag is refused; units with a recorded hex '
        'come from the friendly MLR within 10 hexes of the mission hex; only a Corporal, Sergeant or '
        'Lieutenant leads; a result strikes units by Random Selection, drs recorded (ruling R29), and '
        '`oob` shows them reduced, eliminated or captured; their CVP count for the current firefight '
        '(2.756, ruling R39), added to the CVP `end` is given'))
    redeployment_limits: bool = switch(2, (
        "3.2: a unit in the enemy MLR, Uncontrolled terrain or No Man's Land redeploys to the nearest "
        'friendly CTHC (3.214, 3.216, 3.217); an Isolated unit may, not must, redeploy (3.215: not owed);'
        ' an Immobilized vehicle does not redeploy'))
    clearance_rules: bool = switch(2, (
        "3.52: an Eliminated result removes the rubble, as PL's table says (ruling R38; revision 1 left a"
        ' Trailbreak); the Original-6 Casualty Reduction applies only against a Known minefield or Panji,'
        ' not hidden mines'))
    strategic_grows: bool = switch(2, (
        '1.4: hexes the campaign gives rubble, a pillbox, an entrenchment (foxhole, trench, A-T ditch) or'
        ' an emplaced Gun (a Gun set up on the map) become Strategic Terrain: `end --control` may name '
        'them and they count for CTHC and MLR; they carry no TVP (ruling R46), and `map --json` marks '
        'them `"grown": true`'))
    fortify_rules: bool = switch(2, (
        '2.38: a fortification goes inside the friendly MLR (I items also in an Isolated Location), never'
        ' in rubble except a Set DC (B24.5, note 8); HIP is priced by what hides (note 3: a Gun at its '
        "crew's price; a SW hides with its possessor, refused alone); a Cave Complex only once four caves"
        ' are bought (note 9); `setup --hip` needs a HIP bought for the unit, except a Gun in the Initial'
        ' Firefight (CG3) or a unit still HIP from the last firefight (3.24)'))
    ammunition_shortage: bool = switch(2, (
        '3.211/1.4: a unit ending the RePh Isolated (3.25, or left Isolated by 3.216) shows Ammunition '
        'Shortage (`oob`) for the next firefight, and the mark is lifted when that firefight ends'))
    option_a_order: bool = switch(2, (
        '2.5 Option A: the Defender redeploys first (once the Attacker has redeployed a unit, the '
        'Defender may not; the Attacker begins once the Defender has begun, has said it is done '
        '(`redeploy SIDE --done`) or has no unit that may redeploy, ruling R85), and a unit redeploys only '
        'to another CTHC than the one it stands in'))
    setup_order: bool = switch(2, (
        '2.6: the side that sets up first (2.41) sets up before the other: once the second side has set '
        'up a unit, the first sets up no more'))
    generated_leader_placed: bool = switch(2, (
        '3.45: a generated leader placed on map (`leader --generated --hex HEX`) goes to a hex holding a '
        'friendly non-Isolated MMC on map, else exit 3; a side with no recorded hexes is taken at its '
        'word (ruling R33); under revision 1 a `--hex` is recorded as typed, unchecked'))
    encircled_kept: bool = switch(2, (
        '3.17: a unit that passes its 1TC stays Encircled (revision 1 removed the marker)'))
    cg_objectives: bool = switch(3, (
        "1.3 / ruling R74: a CG Objective of the card's `[victory]` fulfilled when the firefight it names"
        ' is complete with its RePh ends the CG ("CG Objectives"), and the CG\'s end records the winner '
        "the card's Victory Conditions give"))
    reserve_ends: bool = switch(3, (
        '2.33: a unit is In Reserve for the firefight it was bought for only: set up on map it is on map '
        'after that firefight (a Gun there is an emplaced Gun, Strategic Terrain by 1.4), kept off map it'
        ' sets up normally in a later firefight'))
    option_a_in_place: bool = switch(3, (
        '2.5 Option A / 3.34 "leave all units in place": a unit left on map by the last firefight is set '
        'up at 2.6 only where it stands (exit 3 elsewhere); it moves by a 2.5 redeployment'))
    hip_in_place: bool = switch(3, (
        '3.24: a unit still HIP from the last firefight sets up HIP only in its own Location (3.24 "may '
        'remain in their current Location"); 3.212 b / 3.215: a unit left Isolated at 3.2 loses its HIP '
        'whether it redeploys or not'))
    option_b_setup: bool = switch(3, (
        '2.5 Option B: every unit in a friendly MLR sets up there, one that redeployed at 3.2 too (ruling'
        ' R28 holds for Option A only)'))
    isolated_drm: bool = switch(3, (
        '3.21: an Isolated unit\'s "nearest FMLR" is measured to the friendly MLR outside Isolated '
        "Locations and No Man's Land (its pocket is no FMLR: revision 2 counted it as distance 0, so the "
        '+1 never applied), and a unit in an Isolated Location, which lies inside the enemy MLR (3.215), '
        'takes "+2 unit is in Enemy MLR"'))
    moves_first_closes_setup: bool = switch(3, (
        '2.41 Dual Attack: the moves-first dr is made "after all setup is complete", so once it is made '
        'no unit sets up (exit 3, ruling R54)'))
    cthc_per_hex: bool = switch(3, (
        '1.4, 3.214, 3.216, 3.217, 2.5 Option A: a CTHC is the cluster of one controlled Strategic '
        'Terrain hex, so CTHCs overlap (ruling R53); "the nearest friendly CTHC" is the nearest such '
        'cluster (revision 2 merged touching clusters into one, letting a unit jump 7+ hexes along a '
        'front), and Option A redeploys to a cluster the unit does not stand in (revision 2: never along '
        'a continuous front)'))
    rg_ownership: bool = switch(3, (
        '2.37: in the first firefight its RG takes part in (the one it was bought for), a leader sets up '
        'in a hex where a MMC/AFV of its RG has set up, and a SW/Gun where a unit of its RG has (exit 3 '
        'otherwise); one kept off map or bought for an Idle Firefight sets up freely later (2.37 EXC)'))
    patrol_team: bool = switch(3, (
        '2.72: the patrol\'s units (with recorded hexes) stand in the friendly MLR "within 10 hexes of '
        'each other" (revision 2 measured them to the mission hex, a wrong refusal); a unit out on a '
        'patrol that owes its Return goes on no other (one leader led two patrols at once); 2.73: a water'
        ' hex of the card is no mission hex (ruling R56)'))
    patrol_quality: bool = switch(3, (
        '2.74: a MMC is Inexperienced when its counter (counter table) or its RG is Green or Conscript (a'
        ' 4-3-6 in a 1st Line RG patrols with +1), Elite only when its RG is Elite and its counter, where'
        ' the table knows it, is too (ruling R55)'))
    patrol_smc_wounded: bool = switch(3, (
        '2.74 / ruling R29: a Reduced result that strikes a leader wounds it (a wounded one is '
        'eliminated), as Casualty Reduction does (A15, A17) and `end --reduced` already did; revision 2 '
        'eliminated it'))
    leader_rank_from_card: bool = switch(3, (
        '2.72: a leader\'s rank is the one the card\'s `[counters]` gives (`"9-1" = { rank = "Captain" }`),'
        " else unknown and taken at the players' word: the counter table's convention (a 9-1 a Captain, a"
        ' 9-2 a Major) no longer bars a leader from patrols (ruling R52)'))
    pbem_pace: bool = switch(3, (
        'play by email (ruling R71): `next` leaves a step at once, provisionally, except at 2.3 (the '
        "other side's continuing confirms the leave, its `reject` undoes it with everything after, unless"
        ' a roll followed); at 2.3, and wherever only the other side still owes something, `next` is '
        'proposed and the other side acts meanwhile, its own `next` confirming it (as it confirms a '
        'proposed `end` or `determine`); a 2.41 determination without dice is decided at once'))
    two_party_order: bool = switch(3, (
        'play by email, two-party dice (ruling R67): a side holds one open commitment per command; its '
        'reveals go in the order it committed; a reveal it withholds past its own next signature may be '
        'claimed by the other side (`plcg claim`)'))
    attack_seal: bool = switch(3, (
        'play by email, sealed secrets (ruling R47): every side seals its Attack Option choice at 2.3 of '
        'a firefight after the first, yes or no, made by the ledger as the side leaves 2.3 whatever order '
        'it typed (ruling R109; `plcg attack SIDE` is a sealed purchase), a seal of its own kind `attack` '
        'the other copy sees; 2.4 opens exactly that seal, so an empty 2.4 reveal is refused by the other copy'))
    sign_once: bool = switch(3, (
        "play by email: a side's signature over nothing new (the head is its own signature already) is "
        'refused (exit 3, rule pbem)'))
    encircled_abandoned: bool = switch(3, (
        '3.17: an Immobile AFV/vehicle (flagged `end --repair SIDE:UNIT=immobilized`, not repaired since)'
        ' whose inherent crew fails its 1TC is left Immobile and Abandoned (`oob`: abandoned), not '
        'eliminated; a failed 1TC names its row as the morale + 1 or more (`row >=8` for morale 7: a '
        'final 7 passes)'))
    reph_losses_cvp: bool = switch(3, (
        '3.11 / ruling R58: the RePh losses the ledger decides itself (3.17 1TC, 3.19 Shock/UK, 3.21 '
        "Redeployment Table, 3.52 Casualty Reduction; and, ruling R95, the units R48 eliminates as 3.2 is left, "
        "recorded `counted` on `units_stranded`) add their CVP (ruling R39's values) to the "
        "firefight's CVP lost; a winner decided by 1.31 is decided again, so 1.31, 2.12 and 3.44 see them"))
    hardening_card_quality: bool = switch(3, (
        '3.43/3.44 EXC: whether an MMC is Elite, and so turns Fanatic instead of changing counter, is the'
        ' class the CG Card gives its RG (`quality`, the class 3.47 counts), while the unit still is a '
        "counter the RG lists; a counter it became since (hardened, replaced) takes the counter table's "
        "class. The sample's 1st Line US 6-6-7 no longer turns Fanatic: the table knows no higher counter"
        ' for it, so `harden --to` asks (ruling R34)'))
    fortify_notes: bool = switch(3, (
        '2.38 as its notes say: a Fortified Building only in a building hex of the card (note 5); a Set '
        'DC only in a building, hut, rubble, bridge, pillbox or trench Location inside a friendly CTHC '
        '(note 8: "in friendly Controlled Terrain"); four caves for each Cave Complex (note 9: the second'
        ' complex needs eight); Booby Traps only on a card whose FSR allow them (`booby_traps = true`; '
        'CG12), absent is not allowed'))
    fortify_placed_at_setup: bool = switch(3, (
        '2.38 "the actual on-map positioning of Fortifications may be deferred until that side sets up '
        'for the next CG Firefight during step 2.6": at 2.6 `plcg fortify SIDE KIND --hex HEX` places the'
        " side's oldest KIND bought for this firefight without a hex (event `fortification_placed`), "
        'under the placement limits of its purchase; revision 2 refused `fortify` at 2.6, so such a '
        'fortification could never be placed'))
    repair_drm_from_ob: bool = switch(3, (
        '3.46/3.461: the one bonus the lists name, Leadership (3.46, Disabled and Immobilized repairs), '
        "is the best leader's in the item's hex, from the OB (rulings R30, R33); where the item has no "
        'recorded hex (a SW stands with a possessor the ledger does not know) `repair --leadership N` is '
        "taken as typed, and only as the modifier of one of the side's leaders in play; `--drm` states "
        'the penalties the ledger cannot see (Inexperience, Captured Use, Ammunition Shortage), 0 or '
        'more, on `repair` and `recall` (3.461 lists penalties only)'))
    clearance_casualty_reduction: bool = switch(3, (
        '3.52 dagger: an Original 6 against a Known minefield or Panji owes the Casualty Reduction of one'
        ' MMC before 3.52 is left (`status` pending: `plcg casualties SIDE --reduced UNIT[=COUNTER]`), in'
        " the rule's order: an Assault Engineer squad, else an Elite MMC, else 1st Line, 2nd Line, Green,"
        " Conscript (the card's quality of the RG, else the counter table's class); the squad becomes its"
        ' HS (a HS is eliminated) and its CVP count (ruling R58); revision 2 logged the reduction and '
        'reduced nobody'))
    disease_replacements: bool = switch(3, (
        '3.41: the squads the Disease & Starvation dr strikes are owed before 3.41 is left (`status` '
        'pending: `plcg disease SIDE --replaced UNIT[=COUNTER]`), counted in HS equivalents (a squad 2, a'
        ' HS 1); every Isolated squad or HS first ("must choose all Isolated units before applying '
        'Replacement to any non-Isolated unit"); each is ELR Replaced by the counter table (A19.13, '
        'ruling R34) and once per RePh; revision 2 named the number and replaced none'))
    regroup_and_heroes: bool = switch(3, (
        '3.42: leaving 3.42 recombines, in pairs, the same-type half-squads (one counter) of a side in '
        'one Friendly MLR (a connected part of its MLR hexes; a unit with no recorded hex is in its '
        "friendly MLR), into the squad of the RG's card whose HS it is, else the one squad of the counter"
        ' table with that HS (where two squads share it the pair stays: ask the players); the second HS '
        'leaves play (`oob`: recombined). 3.43: a Hero combines only with an MMC within its MLR (by '
        'recorded hexes, ruling R33), and leaving 3.43 removes the Heroes beyond one per side ("until '
        'each side has <1 hero in play", read as at most one; the first in the OB stays)'))
    attack_oba_this_reph: bool = switch(3, (
        '2.351 / ruling R14 revised: the -1 goes with the Attack Option bought in this 2.3 whatever the '
        'order of the commands; an OBA DR made before the purchase is read again with the -1 when the '
        'Attack Option is bought'))
    rubble_not_in_water: bool = switch(3, (
        'B24.121 / Table 23: rubble falls on non-Water Obstacle terrain only: falling rubble whose '
        'direction leads into a water hex of the card places none there (the roll says so), and `end '
        '--terrain HEX=rubble` on a water hex is refused (exit 3, B24.121); so a stream never grows '
        'Strategic Terrain (1.4)'))
    mmc_crews: bool = switch(3, (
        '3.43-3.45: a crew is an MMC (ASL A1.1) for Battle Hardening (3.43, 3.44) and for the 3.45 limit '
        'on leaders generated (MMC on board), as it already was for placing one; revisions 1-2 counted '
        'squads and half-squads only there'))
    immobilized_stays: bool = switch(3, (
        "3.2 / 3.23 (ruling R48): an Immobilized vehicle in an Isolated Location (3.215: never owed a "
        'redeployment) is wrecked when 3.2 is left if beyond 3 hexes of a friendly MMC/AFV (3.23); revision '
        "2 left it as it was. The rest of ruling R48 holds under every revision (promise 28, issue 35): a "
        'unit that cannot redeploy (an Immobilized vehicle where `redeploy` refuses it, revision 2 on; any '
        'unit whose side holds no friendly-controlled hex) owes no redeployment and meets 3.214, 3.216, 3.217'
        ' and 3.23 when 3.2 is left, and 3.46 owes no repair `repair` refuses where the item stands'))
    dual_night_draw: bool = switch(3, (
        '1.31 / 2.421 (ruling R5 revised): in a Dual Night Assault (a night firefight both sides bought an Attack '
        'Option for) neither side is the Firefight Defender, so a CVP tie is a draw (`winner_rule` 2.421), unless '
        '`end --winner` names a side; revisions 1-2 gave it to the side that moved second'))
    afv_proximity: bool = switch(3, (
        '3.23 (ruling R95): an Immobilized vehicle is kept from its wreck by a friendly MMC, or a vehicle of an AFV '
        'RG, within 3 hexes ("MMC/AFV/Gun-armed Vehicle"); a vehicle of a `vehicle` RG (the card gives no armament) '
        'no longer counts'))
    set_dc_needs_dc: bool = switch(3, (
        '2.38 note 8 (ruling R97): a Set DC is bought only for a DC of the side that sets up on map (not In '
        'Reserve, not entering): one Set DC per such DC for the firefight; revision 2 bought one without any DC'))
    booby_traps_level: bool = switch(3, (
        'CG12 / 2.38 notes 6-7 (ruling R99): Booby Traps are bought as a level of the side in effect within its MLR '
        '(A, then B, then C; a level the card gives the side preexists), never in a hex: `fortify SIDE booby_traps '
        '--hex` is refused, and so is a purchase above Level C; revision 2 kept them as an item of one hex'))
    judged_before_roll: bool = switch(3, (
        'ruling R49: what decides whether a command is legal is judged before its dice are rolled: '
        '`leader --commissar` takes the Commissar on a * row and keeps the leader rolled on any other '
        "(never refused after the roll); `redeploy --counter` and the half-squad a patrol's Reduced "
        'result may need are asked for, or refused, before the roll'))
    entry_not_set_up: bool = switch(3, (
        '2.34 / 2.6 (ruling R50): a unit of an RG bought to enter (`--mode entry`) for this firefight '
        'does not set up on the map (exit 3)'))
    sealed_views_agree: bool = switch(3, (
        'play by email, sealed secrets (ruling R47): a shared fact records only what both copies know: an'
        " Idle Firefight's 2.41 determination lists no lost patrols or Air Support (each copy folds the "
        "loss of what it holds; the other side's were sealed, and the confirming copy refused the "
        "proposer's list)"))
    setup_first_begins: bool = switch(3, (
        '2.6 (ruling R51): the side that sets up second may not begin before the side that sets up first '
        'has set up a unit (while it has one that may set up); the refusal names who sets up first'))
    idle_reveal: bool = switch(3, (
        'play by email, sealed secrets (ruling R80): an Idle Firefight skips 2.6, so once 2.41 has '
        "determined it Idle each side reveals there, at 2.4, every purchase 2.6 would have revealed "
        "(`next` waits for both): its units are in the OB from then on (2.32), and 3.41, 3.46 and 3.52 "
        'may name them (a Disease replacement of one was refused by the other copy for good)'))

    dice_chain: bool = switch(3, (
        'play by email, two-party dice (ruling R83, revising R44): each side commits once to a hash chain'
        ' of answers; a roll outside a sealed step shows its own value with its commitment and is decided'
        " by the other side's next bundle, whose chain value (fixed before the roll) answers it: no reveal"
        ' round trip; a signature over such a roll without its answer is refused'))
    letters_pace: bool = switch(3, (
        "play by email (ruling R84, extends R71 and R73): in a two-party campaign the firefight's end "
        "(`end`) takes effect at once, provisionally (the other side's next command confirms it, its "
        '`reject` undoes it with everything after, unless dice were decided after it); a side whose `next` '
        "would confirm the other side's proposal to leave the step while only that side still owes "
        'something (its answer to this side\'s dice) proposes the leave in its place, so that the other '
        "side's `next` leaves; a side's command answers the other side's open two-party dice first"))
    patrol_return_typed: bool = switch(3, (
        '2.74 / ruling R26: the DRM flags typed at Detection (`patrol --stealthy`, `--lax`, and `--sw-pp` or '
        '`--enemy-adjacent` where the ledger cannot tell) are recorded with the patrol and apply to its Return '
        'roll too (`patrol-return` has no such options; revision 2 left them off the Return roll)'))
    patrol_loses_hip: bool = switch(3, (
        '2.72 / 2.74 step 4: a unit that goes on a patrol loses HIP (its units go to a cloaking box, and the '
        'returned ones "may regain concealment as per CG11", not HIP), so 3.24 keeps no HIP for it; revision 2 '
        'kept it hidden through the firefight, a HIP never bought again'))
    sw_with_possessor: bool = switch(3, (
        '3.21 / ruling R86: a SW stands with its possessor (a MMC of its RG in its hex first, then its RG\'s '
        'leader, then any other MMC, then SMC there): it moves with it when the unit\'s end position is given '
        '(2.9) and when it redeploys (2.5, 3.2); 3.2 never owes a SW\'s redeployment and a SW is not '
        'redeployed on a roll of its own (exit 3, rule 3.21); `position` places a SW only where a MMC or SMC '
        'of its side stands (revision 2 refused it, and owed a lone SW a 3.214 roll on the Infantry column)'))
    captive_double: bool = switch(3, (
        "3.22 / ruling R91: the unit a patrol's Return result captures (14 or more) is a guarded prisoner, "
        'worth double its CVP (ruling R39\'s value) for the current firefight; revision 2 counted it once'))


# switch -> (revision that brings it, what changes)
SWITCHES: dict[str, tuple[int, str]] = {
    f.name: (f.metadata["since"], f.metadata["text"]) for f in attrs.fields(Rules)}
# one record per revision, made once: reading a switch is an attribute lookup
_RECORDS = {n: Rules(**{name: n >= since for name, (since, _t) in SWITCHES.items()})
            for n in range(1, CURRENT + 1)}


def revision(st) -> int:
    """The revision in force at the state's firefight (an upgrade takes effect at its 2.1)."""
    rev = st.rules_revision
    for ff, to in st.rules_upgrades:
        if st.firefight >= ff:
            rev = to
    return rev


def of(st) -> Rules:
    """The revision record in force at the state's firefight."""
    if not st.rules_upgrades:  # the usual campaign: asked a million times by a long audit (issue 28)
        return _RECORDS[st.rules_revision]
    return _RECORDS[revision(st)]


def markdown_table() -> str:
    """docs/revisions.md's table of switches."""
    lines = ["| switch | from revision | what changes |", "|---|---|---|"]
    lines += [f"| `{name}` | {since} | {text} |" for name, (since, text) in SWITCHES.items()]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
