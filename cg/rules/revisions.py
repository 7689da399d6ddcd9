"""Ruling R32: a campaign keeps the rules revision it was started under; the revisions as variants.

The first event records the revision (a log without one is revision 1, the first release);
`plcg rules-upgrade` records the move to CURRENT from the next firefight's 2.1 on. `Rules` decides as
the current revision does, one method per decision that changed, named for what the rules decide;
`Revision2(Rules)` and `Revision1(Revision2)` override only what differs, as python-chess's variant
boards override only their variant's rules. `rules_for(state)` gives the instance in force.

Each method that changed carries `@since(N, text)` on its current form in `Rules`: the revision that
brings the change and its row in docs/revisions.md (the other methods of one change carry
`@same_change(method)`: one row); the class of revision N-1 overrides exactly those (tests/test_revision.py).
The table of docs/revisions.md is generated from these marks (`python -m cg.rules`).

Every method asked outside this package takes the facts at hand and decides from them, as python-chess's variants
do: it answers with a value (a DRM's terms, a refusal's words or None, the counter a unit becomes, the records a
branch makes), or, where the revision's difference is a whole branch of a handler or of the fold (a check, a
computation the older revision never makes), yes or no, named for what the rules decide (`judges_before_roll`,
`fortification_limits_apply`, `regroups_leaving`): the caller runs its branch on a yes. No method takes the
caller's code to run or not; one takes a computation, kept lazy for speed, and says why (`strategic_terrain`). A
few methods take no facts and answer yes or no: they only carry a change's mark (`@since`) for its siblings, and
nothing outside cg/rules asks them (tests/test_revision.py).

How long a revision is kept (docs/architecture.md): as long as any campaign file can carry it, since
logs are never migrated; it is retired only by a major version whose `replay` refuses it (exit 2,
naming the revision), never silently.
"""
from __future__ import annotations

from typing import Any, Callable, cast

from cg import items, tables
from cg.sequence import StepId
from events.errors import BadInput, Refused
from events.roll import Drm
from cg.units import MMC, Kind, Status, article, is_mmc as a1_1_mmc

CURRENT = 3  # the revision a new campaign starts under
OTHER = {"axis": "allied", "allied": "axis"}  # cg.state's other(), which loads after this module

# The ledger's conventions (issue 38): what it names and checks beside the rules, recorded as `conventions`
# in the first event of a campaign started since; never changed by `rules-upgrade`. A campaign without it is
# decided as it always was (its leader ids, its `end` commands), so an old log replays and audits unchanged.
CONVENTIONS = 3  # what a new campaign records
LEADERS_PER_RG = 1  # a leader a 2.36 DR gives is numbered within its RG per side (I1-2.L1), a 3.45 one within its RePh
END_CVP_CHECK = 1  # `end` refuses a CVP lost below the CVP of the units it lists lost (A26.2, ruling R39)
_MARKED = ("next", "confirm", "fortify")  # what Rules.ruling_marks marks (a tuple: a name of any type compares)
MARKS_HELD = 2  # rulings R110, R111, R112, R119, R127 by the campaign, not by the marks its commands carry (Rules.ruling_marks)
AHEAD_ROLLS = 3  # ruling R121: a side commits its 3.41, 3.44, 3.45 and 3.47 rolls ahead of their steps
DUAL_DETERMINED = 3  # ruling R122: a Dual Attack's 2.41 determination is rolled two-party, not proposed


def conventions(st, since: int) -> bool:
    """Whether the campaign was started under the ledger's conventions `since` or later (docs/revisions.md)."""
    return (st.conventions or 0) >= since


def since(revision: int, text: str) -> Callable:
    """Marks a decision of `Rules` that changed at `revision`; `text` is its row in docs/revisions.md."""
    def mark(fn):
        fn.changes = getattr(fn, "changes", ()) + ((revision, text),)
        return fn
    return mark


def same_change(other: Callable) -> Callable:
    """Marks a decision of `Rules` changed by the change(s) marked on `other` (one row of docs/revisions.md)."""
    def mark(fn):
        fn.changes = getattr(fn, "changes", ()) + cast(Any, other).changes  # marked by @change
        return fn
    return mark


def _patrol_leader_refusal(st, side: str, leader, convention: bool) -> str | None:
    """2.72: why `leader` may not lead a patrol, its rank by the counter table's convention or the card's."""
    from cg import counters  # lazy: cg.counters (~2.3 ms) only for a card with [counters] (ruling R34)

    nat, over = st.card.sides[side].nationality, st.card.counter_overrides(side)
    if counters.may_lead_patrol(nat, leader.name, over, convention) is not False:
        return None
    rank = counters.leader_rank(nat, leader.name, over) if convention else counters.card_rank(leader.name, over)
    return (f"{leader.id} ({leader.name}, {rank}) may not lead a patrol: a Corporal, Sergeant or Lieutenant does ("
            + ("counter table, ruling R34" if convention else "the card's [counters], ruling R52") + ")")


class Rules:
    """The decisions of the current revision (CURRENT) that changed between revisions, named for what they
    decide; the older revisions subclass it."""

    revision = CURRENT

    @since(2, (
        "2.3: purchase numbers count per side (the Allies' first I1 is I1-1, not I1-2 after an Axis "
        'I1); unit ids then repeat across sides, so units are named `SIDE UNIT` / `SIDE:UNIT` '
        'everywhere'))
    def purchase_number(self, st, side: str, rg: str) -> int:
        """2.3: the number of the side's next purchase of `rg` (its purchase id is RG-N): counted per side, and
        never one of this side's already used (a campaign upgraded from revision 1 has numbers counted across
        sides)."""
        n = st.purchase_count.get((side, rg), 0) + 1
        while st.purchase(f"{rg}-{n}", side) is not None:
            n += 1
        return n

    @since(2, (
        "3.17, 3.21: Leadership is the modifier of the best leader in the unit's hex (rulings R30, "
        'R33); `--leadership` is taken, and recorded as typed, only where the unit has no recorded '
        'hex; a typed value contradicting the OB is refused (exit 3)'))
    def typed_leadership(self, typed: int | None, rule: str) -> tuple | None:
        """3.17, 3.21: the Leadership DRM taken as typed (`--leadership`), or None: Leadership is the modifier of
        the best leader in the unit's hex, from the OB (rulings R30, R33; typed only where the unit has no hex)."""
        return None

    @since(2, '3.21: a unit left Isolated by 3.216, not only one in an Isolated Location, takes the Isolated +1')
    def takes_isolated_drm(self, situation: str, unit) -> bool:
        """3.21 "+1 unit is Isolated": a unit in an Isolated Location, or left Isolated by 3.216 (ruling R1)."""
        return situation == "isolated" or (unit is not None and unit.isolated)

    @since(2, '3.21 / ruling R1: the Isolated +1 applies 6 or more hexes from the nearest friendly MLR (">6" is 6 or '
              'more; revision 1 needed more than 6)')
    def far_from_fmlr(self, distance: int | None) -> bool:
        """3.21: is an Isolated unit `distance` hexes from the nearest FMLR far enough for the +1 (None: no FMLR)."""
        return distance is None or distance >= 6

    @since(2, '3.21: no -1 "inside/adjacent to friendly MLR" for an Isolated pocket, as if it were a friendly MLR')
    def friendly_mlr_drm_applies(self, situation: str) -> bool:
        """3.21 "-1 inside/adjacent to friendly MLR": not for a unit in an Isolated Location (no FMLR)."""
        return situation != "isolated"

    @since(2, (
        "3.21: Replaced and Reduced change the unit's counter (counter table, ruling R34, or "
        '`redeploy --counter`; note 2: no lower counter means Casualty Reduced), a reduced HS or crew'
        ' is eliminated, a leader wounded'))
    def redeployment_change(self, st, u, result: str, given, strict: bool = True) -> tuple[str | None, bool]:
        """What a 3.21 result does to the unit's counter: (the counter it becomes, or "wounded"/"eliminated",
        or None; whether that is a loss). Replaced / Reduced by the counter table (ruling R34), or the counter
        given (--counter) where the table lacks it. strict: a given counter the table contradicts is refused
        here, after the roll (before ruling R49)."""
        from cg import counters  # lazy: cg.counters (~2.3 ms) only for a card with [counters] (ruling R34)

        if result not in ("redeploys_replaced", "redeploys_reduced", "remains_reduced") or u.kind == Kind.VEHICLE:
            return None, False
        nat, over = st.card.sides[u.side].nationality, st.card.counter_overrides(u.side)
        given = (str(given).strip() or None) if given else None
        if result == "redeploys_replaced" and u.kind in (Kind.SQUAD, Kind.HALF_SQUAD, Kind.LEADER):
            to = counters.replacement(nat, u.name, over)
            if to is not None and given and given != to and strict:
                raise Refused(f"{u.id} ({u.name}) is replaced by {to} by the counter table, not {given} (ruling R34: "
                              "--counter is for counters the table lacks)", "R34", st.step)
            to = to or given
            if to is not None:
                return to, False
            c = counters.lookup(nat, u.name, over)
            if c is None or c.replaced is None and (c.klass or "") not in ("green", "conscript") and u.name != "6+1":
                raise BadInput(f"{u.id} ({nat} {u.name}) is Replaced (3.21) and the counter table has no "
                               "replacement: give it with --counter COUNTER (ruling R34)")
            # note 2 (A19.12): no lower counter -> Disrupted -> Casualty Reduced instead
        if u.kind == Kind.SQUAD:
            to = counters.half_squad(nat, u.name, over) or given
            if to is None:
                raise BadInput(f"{u.id} ({nat} {u.name}) is Reduced (3.21) and the counter table has no half-squad: "
                               "give it with --counter COUNTER (ruling R34)")
            return to, True
        if u.kind == Kind.LEADER and not u.wounded:
            return "wounded", True
        return "eliminated", True

    @since(2, '3.212-3.217: a unit redeploying from outside a friendly MLR loses HIP, and concealment too except '
              'when Isolated (3.215)')
    def hiding_lost_in_redeployment(self, situation: str) -> tuple[bool, bool]:
        """(HIP lost, concealment lost) by a unit redeploying from `situation` (3.212-3.217)."""
        outside = situation != "friendly_mlr"
        return outside, outside and situation != "isolated"

    @since(2, (
        '3.43-3.45: Battle Hardening changes the counter by the counter table (ruling R34; `harden '
        '--to` only where the table lacks it, a different one is refused); an Elite MMC turns Fanatic'
        ' and keeps its counter; 3.43 needs a heroic leader (hardening itself) or a Hero (`end '
        '--hero`) for an MMC to combine with, each used once'))
    def hardening_by_counter_table(self) -> bool:
        return True

    @same_change(hardening_by_counter_table)
    def hardening_applied(self, p) -> tuple:
        """3.43-3.45: what a UnitHardened event `p` changes beside the unit's hardening: (the counter it becomes,
        whether it turns Fanatic, the Hero it used up), each None/False for nothing."""
        return p.to, p.fanatic, p.hero

    @since(2, (
        '3.46: a failed malfunction/Low Ammo repair keeps the malfunction (owed again at the next '
        "RePh's 3.46); a malfunction or Low Ammo repair takes no DRM; only a vehicle is Immobilized, "
        'and it is repaired only in a friendly MLR not adjacent to an enemy CTHC'))
    def repair_limits_apply(self) -> bool:
        return True

    @same_change(repair_limits_apply)
    def repair_command_refusal(self, item: str, kind: str, drm: int, failed_this_reph: bool) -> str | None:
        """3.46: why a `repair` of `item` (a `kind` repair, stated `drm`) is refused, beside where the item stands
        (cg.rules.questions.repair_refusal): its repair failed this RePh (`failed_this_reph`: it stays malfunctioned
        into the next firefight); a malfunction or Low Ammo repair takes no DRM."""
        if failed_this_reph:
            return f"{item}'s repair failed this RePh: it stays malfunctioned into the next firefight"
        if drm and kind in ("malfunction", "low_ammo"):
            return (f"{article(kind.replace('_', ' ')).capitalize()} repair takes no DRM (only Disabled and Immobilized "
                    "repairs do)")
        return None

    @same_change(repair_limits_apply)
    def failed_repair_kept(self, kind: str) -> bool:
        """3.46: does a failed repair of a `kind` item keep it (owed again at the next RePh's 3.46): a malfunction
        or Low Ammo."""
        return kind in ("malfunction", "low_ammo")

    @since(2, (
        '3.45: leaders evacuated at 3.32 count among the leaders lost in the firefight and the RePh'))
    def evacuated_leader_lost(self, st, u) -> None:
        """3.45: a leader evacuated at 3.32 counts among the leaders lost in the firefight and the RePh."""
        u.eliminated_in = st.firefight
        st.ff.lost.append([u.side, u.id])

    @since(2, (
        'CG7: a used OBA module (its OBA and radio/phone counters, `end --oba-used`) and every Air '
        'Support RG bought for the firefight, used or not, leave the OB when the firefight ends '
        '(`oob`: expended)'))
    def expended_at_end(self, st, oba_used) -> list:
        """CG7 EXC: the purchases whose units leave the OB as the firefight ends (status "expended"): a used OBA
        module (`oba_used`: its SideUnit records) and this firefight's Air Support, used or not."""
        spent = [st.purchase(su.unit, su.side) for su in oba_used]
        spent += [pur for pur in st.purchases.values() if pur.kind == "air" and pur.firefight == st.firefight]
        return spent

    @since(2, (
        '3.211 / ruling R28: a unit that redeployed at 3.2 does not redeploy again at 2.5 of the next'
        ' firefight'))
    def redeploys_once_per_reph(self) -> bool:
        return True

    @same_change(redeploys_once_per_reph)
    def redeployed_marks_cleared_leaving_2_5(self, to) -> bool:
        """Ruling R28: are the 3.2 redeployment marks cleared as 2.5 is left for `to`: yes, unless the CG ends."""
        return to != StepId.END

    @same_change(redeploys_once_per_reph)
    def redeployed_marks_cleared_at_2_1(self, played: bool) -> bool:
        """3.211 / ruling R28: are the 3.2 redeployment marks cleared as a firefight's 2.1 begins after one that was
        `played`: no, they last through the next 2.5 (cleared after an Idle Firefight)."""
        return not played

    @since(2, (
        '2.32: a unit sets up inside its friendly MLR, in the Initial Firefight too (never in the '
        "enemy's CTHC); 2.33: the leaders of an RG bought In Reserve keep its 7 hexes too"))
    def setup_hex_refusal(self, hx: str, side: str, situation: str) -> str | None:
        """2.32: why a unit of `side` may not set up in `hx` (its 3.212 `situation`): a unit sets up inside its
        friendly MLR, in the Initial Firefight too (never in the enemy's CTHC)."""
        if situation == "friendly_mlr":
            return None
        return f"{hx} is not inside the {side} MLR ({situation.replace('_', ' ')}): units set up within their friendly MLR"

    @since(2, (
        "2.2 / ruling R27: every firefight visits 2.2 and records its weather, by default the card's "
        "`weather` for it, else the previous firefight's"))
    def weather_every_firefight(self) -> bool:
        return True

    @since(2, (
        '2.41: in a Dual Attack `determine` makes the setup dr only; the moves-first dr is `plcg '
        'moves-first`, owed at 2.6 after all setup'))
    def dual_attack_drs_at(self, step) -> tuple[str, ...]:
        """2.41 Dual Attack: the drs made at `step`: who sets up first at 2.4 (`determine`); who moves first after
        all setup, at 2.6 (`plcg moves-first`)."""
        return {StepId.DETERMINATION: ("setup",), StepId.SETUP: ("move",)}.get(step, ())

    @since(2, (
        '2.9: `end --control` may not give one hex to both sides (exit 2); an `end --terrain` item is'
        ' one of the vocabulary (`cg/items.py`: the words `fortify`, `clear` and `map` use), kept as '
        '`KEY[:SIDE][:FACTORS]`; an unknown word is bad input (exit 2, naming the items; revision 1 '
        'kept any word as typed)'))
    def end_terrain_item(self, text: str) -> items.Kept:
        """2.9: the item `end --terrain HEX=ITEM` keeps: one of the vocabulary (cg/items.py), KEY[:SIDE][:FACTORS];
        ValueError naming the items for an unknown word."""
        return items.parse_terrain(text)

    @same_change(end_terrain_item)
    def control_refusal(self, control: list) -> str | None:
        """2.9: why `end --control` (SideHex records) is bad input: one hex given to both sides."""
        both = sorted({c.hex for c in control if c.side == "axis"} & {c.hex for c in control if c.side == "allied"})
        return f"--control {both[0]}: given to both sides; one hex has one controller (2.9)" if both else None

    @since(2, (
        "2.72-2.74: the Detection and the Return DRM come from the patrol's units (rulings R26, R30, "
        "R33): size in HS equivalents, Elite/Inexperienced from the RGs' quality, Leadership from the"
        " leader's counter, SW PP from the counter table, enemy units adjacent to the mission hex "
        'from recorded hexes, No Moon/Full Moon and PTO from the card (when it has those keys); the '
        'whole list applies to the Return roll; a contradicting typed flag is refused; units with a '
        'recorded hex come from the friendly MLR within 10 hexes of the mission hex; only a Corporal,'
        ' Sergeant or Lieutenant leads; a result strikes units by Random Selection, drs recorded '
        '(ruling R29), and `oob` shows them reduced, eliminated or captured; their CVP count for the '
        'current firefight (2.756, ruling R39), added to the CVP `end` is given'))
    def patrol_drms_from_units(self, kind: str) -> bool:
        """2.72-2.73: does a `kind` patrol (recon, ambush, raid, anti-vehicle) take its Detection DRMs from its
        units (the OB, rulings R26, R30, R33), not from the flags typed: yes."""
        return True

    @since(2, (
        "3.2: a unit in the enemy MLR, Uncontrolled terrain or No Man's Land redeploys to the nearest"
        ' friendly CTHC (3.214, 3.216, 3.217); an Isolated unit may, not must, redeploy (3.215: not '
        'owed); an Immobilized vehicle does not redeploy'))
    def redeployment_to_nearest_cthc(self) -> bool:
        return True

    @same_change(redeployment_to_nearest_cthc)
    def redeploys_to_nearest_cthc(self, situation: str) -> bool:
        """3.214, 3.216, 3.217: does a unit redeploying from `situation` go to the nearest friendly CTHC (where not,
        to any friendly CTHC hex): yes, but an Isolated unit (3.215) may go to any."""
        return situation != "isolated"

    @same_change(redeployment_to_nearest_cthc)
    def redeploying_first(self, owed: list, side: str, unit: str) -> list:
        """3.2: the owed redeployments (side, unit, rule) that go before `unit`'s, in the order 3.214-3.217: an
        Isolated unit's (3.215) hold no other up."""
        return [o for o in owed if o[2] != "3.215" or (o[0], o[1]) == (side, unit)]

    @same_change(redeployment_to_nearest_cthc)
    def owes_redeployment(self, rule: str) -> bool:
        """3.2: does a unit the order 3.214-3.217 lists under `rule` owe its redeployment: an Isolated unit (3.215)
        may, not must, redeploy."""
        return rule != "3.215"

    @since(2, (
        "3.52: an Eliminated result removes the rubble, as PL's table says (ruling R38; revision 1 "
        'left a Trailbreak); the Original-6 Casualty Reduction applies only against a Known minefield'
        ' or Panji, not hidden mines'))
    def eliminated_clearance_leaves(self, item: str) -> str | None:
        """3.52: what an Eliminated result leaves in place of `item` (a kept item's key), None: the item is gone
        (ruling R38: PL's table eliminates rubble too)."""
        return None

    @same_change(eliminated_clearance_leaves)
    def original_6_reduces(self, item: str, here: list) -> bool:
        """3.52 dagger: does a clearance of `item` whose Original dr is 6 reduce an MMC, given the items kept in
        its hex (`here`): against mines only where they are a Known minefield."""
        return item != "mines" or any(i.key == "known_minefield" for i in here)

    @since(2, (
        '1.4: hexes the campaign gives rubble, a pillbox, an entrenchment (foxhole, trench, A-T '
        'ditch) or an emplaced Gun (a Gun set up on the map) become Strategic Terrain: `end '
        '--control` may name them and they count for CTHC and MLR; they carry no TVP (ruling R46), '
        'and `map --json` marks them `"grown": true`'))
    def strategic_terrain_grows(self) -> bool:
        return True

    @since(2, (
        '2.38: a fortification goes inside the friendly MLR (I items also in an Isolated Location), '
        'never in rubble except a Set DC (B24.5, note 8); HIP is priced by what hides (note 3: a Gun '
        "at its crew's price; a SW hides with its possessor, refused alone); a Cave Complex only once"
        ' four caves are bought (note 9); `setup --hip` needs a HIP bought for the unit, except a Gun'
        ' in the Initial Firefight (CG3) or a unit still HIP from the last firefight (3.24)'))
    def fortification_placement_limits(self) -> bool:
        return True

    @same_change(fortification_placement_limits)
    def hip_refusal(self, st, u, still_hip: bool) -> str | None:
        """2.38 / CG3 / 3.24: why `setup --hip` is refused for `u`: a HIP bought for it (`fortify SIDE hip --unit`)
        is needed, except for a Gun (or its crew) in the Initial Firefight or a unit still HIP (`still_hip`)."""
        if still_hip:
            return None
        bought = any(f.side == u.side and f.kind == "hip" and f.unit == u.id
                     and f.firefight == st.firefight for f in st.ground.fortifications)
        gun = u.kind in (Kind.GUN, Kind.CREW) and st.initial  # CG3: a Gun may set up HIP in the Initial Firefight
        if bought or gun:
            return None
        return (f"{u.id} has no HIP bought for it (plcg fortify {u.side} hip --unit {u.id}); only a Gun in the "
                "Initial Firefight (CG3) or a unit still HIP (3.24) hides without")

    @same_change(fortification_placement_limits)
    def hip_priced_as(self, unit_kind: str, unit_type: str) -> str:
        """2.38 note 3: the unit type a HIP for a unit of `unit_kind` is priced as: a Gun at its crew's price."""
        return {"gun": "crew"}.get(unit_kind, unit_type)

    @since(2, (
        '3.211/1.4: a unit ending the RePh Isolated (3.25, or left Isolated by 3.216) shows '
        'Ammunition Shortage (`oob`) for the next firefight, and the mark is lifted when that '
        'firefight ends'))
    def firefight_end_lifts_isolation(self, st) -> None:
        """3.211/1.4: a unit that ended the RePh Isolated showed Ammunition Shortage for this firefight: the mark
        is lifted as it ends."""
        for u in st.units.values():
            u.isolated = False

    @since(2, (
        '2.5 Option A: the Defender redeploys first (once the Attacker has redeployed a unit, the '
        'Defender may not; the Attacker begins once the Defender has begun, has said it is done '
        '(`redeploy SIDE --done`) or has no unit that may redeploy, ruling R85), and a unit redeploys'
        ' only to another CTHC than the one it stands in'))
    def option_a_defender_first(self) -> bool:
        return True

    @same_change(option_a_defender_first)
    def redeployment_marks_side_begun(self, step) -> bool:
        """2.5 Option A (ruling R85): does a redeployment at `step` mark its side as having begun (the Defender
        first, the Attacker once it has begun): at 2.5."""
        return step == StepId.MLR_REDEPLOYMENT

    @same_change(option_a_defender_first)
    def defender_first_at_2_5(self, option: str | None) -> bool:
        """2.5: does the Defender redeploy first under Redeployment Option `option` (Option A, ruling R85)."""
        return option == "A"

    @since(2, (
        '2.6: the side that sets up first (2.41) sets up before the other: once the second side has '
        'set up a unit, the first sets up no more'))
    def first_side_sets_up_first(self) -> bool:
        return True

    @same_change(first_side_sets_up_first)
    def sets_up_no_more(self, setup_first: str | None, side: str, other_begun: bool) -> bool:
        """2.6: has `side` done setting up: the side that sets up first (2.41) sets up no more once the other has
        begun (`other_begun`)."""
        return setup_first == side and other_begun

    @since(2, (
        '3.45: a generated leader placed on map (`leader --generated --hex HEX`) goes to a hex '
        'holding a friendly non-Isolated MMC on map, else exit 3; a side with no recorded hexes is '
        'taken at its word (ruling R33); under revision 1 a `--hex` is recorded as typed, unchecked'))
    def generated_leader_hex_refusal(self, st, side: str, hx: str) -> str | None:
        """3.45: why a generated leader may not be placed in `hx`: "Created Leaders must be placed with
        non-Isolated MMC on map" (or enter as reinforcements: no --hex). Judged where the side's units have
        recorded hexes; a side with none (roster-only play) is taken at its word (ruling R33)."""
        if not any(u.hex for u in st.side_units(side)):
            return None
        # MMC: squads, half-squads and crews (ASL A1.1)
        mmc = [u for u in st.side_units(side) if u.kind in MMC and u.status == Status.ON_MAP and u.hex == hx]
        if not mmc:
            return (f"--hex {hx}: no {side} MMC stands there on map; a generated leader is placed with a "
                    "non-Isolated MMC on map (or enters as a reinforcement: no --hex)")
        if st.map_control().hexes[hx].isolated == side or all(u.isolated for u in mmc):
            return (f"--hex {hx}: the {side} MMC there ({', '.join(u.id for u in mmc)}) are Isolated; a "
                    "generated leader is placed with a non-Isolated MMC")
        return None

    @since(2, (
        '3.17: a unit that passes its 1TC stays Encircled (revision 1 removed the marker)'))
    def encircled_after_1tc(self, outcome: str) -> bool:
        """3.17: does a unit keep its Encircled marker after its 1TC: yes unless the result eliminates it."""
        return outcome != "eliminated"

    @since(3, (
        "1.3 / ruling R74: a CG Objective of the card's `[victory]` fulfilled when the firefight it "
        'names is complete with its RePh ends the CG ("CG Objectives"), and the CG\'s end records the '
        "winner the card's Victory Conditions give"))
    def cg_objectives_end_campaign(self) -> bool:
        return True

    @same_change(cg_objectives_end_campaign)
    def cg_objectives(self, victory) -> tuple:
        """1.3 / ruling R74: the CG Objectives of the card's `[victory]` (`victory`, None: none) that end the CG
        when fulfilled."""
        return tuple(victory.objectives) if victory is not None else ()

    @since(3, (
        '2.33: a unit is In Reserve for the firefight it was bought for only: set up on map it is on '
        'map after that firefight (a Gun there is an emplaced Gun, Strategic Terrain by 1.4), kept '
        'off map it sets up normally in a later firefight'))
    def reserve_for_own_firefight_only(self) -> bool:
        return True

    @same_change(setup_hex_refusal)
    @same_change(reserve_for_own_firefight_only)
    def in_reserve_at_setup(self, st, u, pur) -> bool:
        """2.33: does `u` (of purchase `pur`, None: none) set up In Reserve (7 hexes from the enemy) in this
        firefight: a unit In Reserve, and the leaders of an RG bought In Reserve too, for the firefight it was
        bought for only (kept off map, it "may be set up On Map normally" later)."""
        reserve = u.status == Status.RESERVE or (u.kind == Kind.LEADER and pur is not None and pur.mode == "reserve")
        return reserve and pur is not None and pur.firefight == st.firefight

    @same_change(reserve_for_own_firefight_only)
    def reserve_ends_with_firefight(self, st) -> list:
        """2.33: the units In Reserve that are no longer In Reserve as the firefight ends: every one (In Reserve for
        the firefight it was bought for only)."""
        reserve = Status.RESERVE.value
        return [u for u in st.units.values() if u.status == reserve]

    @since(3, (
        '2.5 Option A / 3.34 "leave all units in place": a unit left on map by the last firefight is '
        'set up at 2.6 only where it stands (exit 3 elsewhere); it moves by a 2.5 redeployment'))
    def option_a_leaves_units_in_place(self) -> bool:
        return True

    @same_change(option_a_leaves_units_in_place)
    def left_in_place(self, st, u, hx: str, set_this_2_6: bool) -> bool:
        """2.5 Option A / 3.34 "leave all units in place": may `u` not set up in `hx`: a unit left on map by the
        last firefight sets up only where it stands (unless set up this 2.6 already, `set_this_2_6`)."""
        return (st.option == "A" and not st.initial and bool(u.hex) and hx != u.hex and u.status == Status.ON_MAP
                and not set_this_2_6)

    @since(3, (
        '3.24: a unit still HIP from the last firefight sets up HIP only in its own Location (3.24 '
        '"may remain in their current Location"); 3.212 b / 3.215: a unit left Isolated at 3.2 loses '
        'its HIP whether it redeploys or not'))
    def hip_when_isolated(self, hip: bool) -> bool:
        """3.212 b / 3.215: whether a unit left Isolated at 3.2 keeps its HIP: it loses any, redeployed or not."""
        return False

    @same_change(hip_when_isolated)
    def keeps_hip_at_setup(self, u, hx: str) -> bool:
        """3.24: does a unit still HIP from the last firefight set up HIP in `hx`: only in its own Location, and
        not once left Isolated."""
        return u.hip and hx == u.hex and not u.isolated

    @since(3, (
        '2.5 Option B: every unit in a friendly MLR sets up there, one that redeployed at 3.2 too '
        '(ruling R28 holds for Option A only)'))
    def sets_up_again_at_2_5(self, step, option: str | None) -> bool:
        """2.5 Option B: does a unit that redeployed at 3.2 set up again at `step`: every unit in a friendly MLR
        sets up there (ruling R28 holds for Option A)."""
        return step == StepId.MLR_REDEPLOYMENT and option == "B"

    @since(3, (
        '3.21: an Isolated unit\'s "nearest FMLR" is measured to the friendly MLR outside Isolated '
        "Locations and No Man's Land (its pocket is no FMLR: revision 2 counted it as distance 0, so "
        'the +1 never applied)'))
    def distance_to_fmlr(self, state, mc, frm: str, side: str) -> int | None:
        """3.21 "nearest FMLR" of an Isolated unit: hexes to the nearest hex of the side's MLR that is neither an
        Isolated Location of it nor No Man's Land; None where there is none."""
        grid = state.grid()
        return min((grid.distance(frm, h) for h, hc in mc.hexes.items()
                    if side in hc.mlr and hc.isolated != side and not hc.nml), default=None)

    @since(3, '3.21: a unit in an Isolated Location, which lies inside the enemy MLR (3.215), takes "+2 unit is in '
              'Enemy MLR"')
    def in_enemy_mlr_for_redeployment(self, situation: str) -> bool:
        """3.21 "+2 unit is in Enemy MLR": the enemy MLR, and an Isolated Location, which lies inside it (3.215)."""
        return situation in ("enemy_mlr", "isolated")

    @since(3, (
        '2.41 Dual Attack: the moves-first dr is made "after all setup is complete", so once it is '
        'made no unit sets up (exit 3, ruling R54)'))
    def setup_closed(self, ff) -> bool:
        """2.41 Dual Attack: is setup complete in firefight `ff`: once the moves-first dr is made (ruling R54)."""
        return ff.type == "dual" and ff.move_first is not None

    @since(3, (
        '1.4, 3.214, 3.216, 3.217, 2.5 Option A: a CTHC is the cluster of one controlled Strategic '
        'Terrain hex, so CTHCs overlap (ruling R53); "the nearest friendly CTHC" is the nearest such '
        'cluster (revision 2 merged touching clusters into one, letting a unit jump 7+ hexes along a '
        'front), and Option A redeploys to a cluster the unit does not stand in (revision 2: never '
        'along a continuous front)'))
    def cthc_per_strategic_hex(self) -> bool:
        return True

    @same_change(cthc_per_strategic_hex)
    def is_another_cthc(self, clusters: list, frm: str | None, to: str) -> bool:
        """2.5 Option A: is `to` in another CTHC than the one a unit in `frm` stands in (`clusters`: the side's
        CTHCs): one of a Strategic hex the unit is not in (ruling R53)."""
        return any(to in c and frm not in c for c in clusters)

    @since(3, (
        '2.37: in the first firefight its RG takes part in (the one it was bought for), a leader sets'
        ' up in a hex where a MMC/AFV of its RG has set up, and a SW/Gun where a unit of its RG has '
        '(exit 3 otherwise); one kept off map or bought for an Idle Firefight sets up freely later '
        '(2.37 EXC)'))
    def sets_up_with_its_rg(self, st, u, pur) -> bool:
        """2.37: does `u` (of purchase `pur`) set up with its RG: a leader, SW or Gun in the first firefight its
        RG takes part in (the one it was bought for)."""
        return u.kind in (Kind.LEADER, Kind.SW, Kind.GUN) and pur is not None and pur.firefight == st.firefight

    @since(3, (
        '2.72: the patrol\'s units (with recorded hexes) stand in the friendly MLR "within 10 hexes of'
        ' each other" (revision 2 measured them to the mission hex, a wrong refusal); a unit out on a'
        ' patrol that owes its Return goes on no other (one leader led two patrols at once)'))
    def patrol_team_refusal(self, st, side: str, team: list, hx: str, mc) -> str | None:
        """2.72: may these units patrol together to `hx`: None, else why not. They come from the friendly MLR
        "within 10 hexes of each other" (where their hexes are recorded), and none is out on a patrol that
        still owes its Return."""
        placed = [u for u in team if u.hex]
        for u in placed:
            if mc.situation(u.hex, side) != "friendly_mlr":
                return f"{u.id} in {u.hex} is not in the {side} MLR"
        g = st.grid()
        for i, a in enumerate(placed):
            for b in placed[i + 1:]:
                if g.distance(a.hex, b.hex) > tables.PATROL_UNITS_WITHIN:
                    return (f"{a.id} in {a.hex} and {b.id} in {b.hex} are {g.distance(a.hex, b.hex)} hexes apart: "
                            "a patrol's units come from within 10 hexes of each other")
        for n in sorted(st.reph.patrols_to_return[side]):
            team_out = st.reph.patrol_units.get((side, n))
            out = set(team_out.team if team_out else ())
            busy = [u.id for u in team if u.id in out]
            if busy:
                return (f"{', '.join(busy)} is out on {side} patrol {n}, which owes its Return (plcg patrol-return "
                        f"{side} {n}): one patrol at a time")
        return None

    @since(3, '2.73: a water hex of the card (not frozen, ruling R96) is no mission hex (ruling R56)')
    def mission_hex_accessible(self, card_map, hx: str) -> bool:
        """2.73: is `hx` Accessible to Infantry as a patrol's mission hex: not a water hex unless frozen."""
        return hx not in card_map.water or hx in card_map.frozen

    @since(3, (
        '2.74: a MMC is Inexperienced when its counter (counter table) or its RG is Green or '
        'Conscript (a 4-3-6 in a 1st Line RG patrols with +1), Elite only when its RG is Elite and '
        'its counter, where the table knows it, is too (ruling R55)'))
    def patrol_class(self, rg: str | None, counter: str | None) -> str | None:
        """2.74 / ruling R55: the class a patrol's MMC counts as, from its RG's quality (the card's) and its
        counter's class (the counter table's, ruling R34): Inexperienced when either is Green/Conscript, Elite when
        its RG is Elite and its counter (where the table knows it) is too; otherwise the RG's quality stands."""
        green = ("green", "conscript")
        if rg in green or counter in green:
            return rg if rg in green else counter
        if rg == "elite" and counter not in (None, "elite"):
            return counter
        return rg

    @since(3, (
        '2.74 / ruling R29: a Reduced result that strikes a leader wounds it (a wounded one is '
        'eliminated), as Casualty Reduction does (A15, A17) and `end --reduced` already did; revision'
        ' 2 eliminated it'))
    def patrol_reduced_leader_becomes(self, leader) -> str:
        """2.74 / ruling R29: what a patrol's Reduced result does to a leader it strikes: wounds it (A15, A17), and
        eliminates a wounded one."""
        return "eliminated" if leader.wounded else "wounded"

    @since(3, (
        '2.72: a leader\'s rank is the one the card\'s `[counters]` gives (`"9-1" = { rank = "Captain" '
        "}`), else unknown and taken at the players' word: the counter table's convention (a 9-1 a "
        'Captain, a 9-2 a Major) no longer bars a leader from patrols (ruling R52)'))
    @same_change(patrol_drms_from_units)
    def patrol_leader_refusal(self, st, side: str, leader) -> str | None:
        """2.72: why `leader` may not lead a patrol: a Corporal, Sergeant or Lieutenant does, by the rank the
        card's `[counters]` gives (ruling R52), else unknown."""
        return _patrol_leader_refusal(st, side, leader, convention=False)

    @since(3, (
        'play by email (ruling R71): `next` leaves a step at once, provisionally, except at 2.3 (the '
        "other side's continuing confirms the leave, its `reject` undoes it with everything after, "
        'unless a roll followed); at 2.3, and wherever only the other side still owes something, '
        '`next` is proposed and the other side acts meanwhile, its own `next` confirming it (as it '
        'confirms a proposed `end` or `determine`); a 2.41 determination without dice is decided at '
        'once'))
    def next_leaves_provisionally(self) -> bool:
        return True

    @since(3, (
        'play by email, two-party dice (ruling R67): a side holds one open commitment per command; '
        'its reveals go in the order it committed; a reveal it withholds past its own next signature '
        'may be claimed by the other side (`plcg claim`)'))
    def reveals_in_commit_order(self) -> bool:
        return True

    @since(3, (
        'play by email, sealed secrets (ruling R47): every side seals its Attack Option choice at 2.3'
        ' of a firefight after the first, yes or no, made by the ledger as the side leaves 2.3 '
        'whatever order it typed (ruling R109; `plcg attack SIDE` is a sealed purchase), a seal of '
        'its own kind `attack` the other copy sees; 2.4 opens exactly that seal, so an empty 2.4 '
        'reveal is refused by the other copy'))
    def attack_choice_sealed(self) -> bool:
        return True

    @since(3, (
        "play by email: a side's signature over nothing new (the head is its own signature already) "
        'is refused (exit 3, rule pbem)'))
    def signature_refusal(self, signed, seq: int) -> str | None:
        """Play by email: why a side's signature over row `seq` is refused, given the row it signed last
        (`signed`: [seq, hash] or None): over nothing new (the head is its own signature already)."""
        if signed is not None and signed[0] == seq - 1:
            return f"signed row {seq} already: a signature over nothing new is refused"
        return None

    @since(3, (
        '3.17: an Immobile AFV/vehicle (flagged `end --repair SIDE:UNIT=immobilized`, not repaired '
        'since) whose inherent crew fails its 1TC is left Immobile and Abandoned (`oob`: abandoned), '
        'not eliminated; a failed 1TC names its row as the morale + 1 or more (`row >=8` for morale '
        '7: a final 7 passes)'))
    def encircled_1tc_hit(self, final: int, morale: int, immobile_vehicle: bool) -> tables.Hit:
        """3.17: the 1TC's result for the final DR `final` against `morale`: passed up to the morale; the failing
        row is 'morale + 1 or more'; a failed 1TC of an Immobile AFV/vehicle's inherent crew leaves it Immobile
        and Abandoned, any other unit failing is eliminated."""
        failed = "abandoned" if immobile_vehicle else "eliminated"
        return tables.Hit("3.17", f"<={morale}" if final <= morale else f">{morale + 1}",
                          "passed" if final <= morale else failed)

    @since(3, (
        '3.11 / ruling R58: the RePh losses the ledger decides itself (3.17 1TC, 3.19 Shock/UK, 3.21 '
        'Redeployment Table, 3.52 Casualty Reduction; and, ruling R95, the units R48 eliminates as '
        "3.2 is left, recorded `counted` on `units_stranded`) add their CVP (ruling R39's values) to "
        "the firefight's CVP lost; a winner decided by 1.31 is decided again, so 1.31, 2.12 and 3.44 "
        'see them'))
    def reph_loss_counts(self, step) -> bool:
        """3.11 / ruling R58: does a loss the ledger decides at `step` add its CVP to the firefight's: every RePh
        loss (3.17 1TC, 3.19 Shock/UK, 3.21 Redeployment Table, 3.52 Casualty Reduction, ruling R95's strandings)."""
        return step.startswith("3.")

    @since(3, (
        '3.43/3.44 EXC: whether an MMC is Elite, and so turns Fanatic instead of changing counter, is'
        ' the class the CG Card gives its RG (`quality`, the class 3.47 counts), while the unit still'
        ' is a counter the RG lists; a counter it became since (hardened, replaced) takes the counter'
        " table's class. The sample's 1st Line US 6-6-7 no longer turns Fanatic: the table knows no "
        'higher counter for it, so `harden --to` asks (ruling R34)'))
    def elite_class_for_hardening(self, card_class: str | None) -> str | None:
        """3.43/3.44 EXC: the class that decides whether a hardened MMC is Elite (and turns Fanatic instead of
        changing counter): the card's, `card_class` (the class the CG Card gives its RG, the one 3.47 counts, while
        the unit still is a counter the RG lists; else None). None: the counter table's class decides."""
        return card_class

    @since(3, (
        '2.38 as its notes say: a Fortified Building only in a building hex of the card (note 5); a '
        'Set DC only in a building, hut, rubble, bridge, pillbox or trench Location inside a friendly'
        ' CTHC (note 8: "in friendly Controlled Terrain"); four caves for each Cave Complex (note 9: '
        'the second complex needs eight); Booby Traps only on a card whose FSR allow them '
        '(`booby_traps = true`; CG12), absent is not allowed'))
    def fortification_notes_apply(self, kind: str) -> bool:
        """2.38: are its notes checked where a `kind` fortification goes (a Fortified Building in a building hex, a
        Set DC's Location, four caves a Cave Complex, Booby Traps where the FSR allow them): yes."""
        return True

    @since(3, (
        '2.38 "the actual on-map positioning of Fortifications may be deferred until that side sets '
        'up for the next CG Firefight during step 2.6": at 2.6 `plcg fortify SIDE KIND --hex HEX` '
        "places the side's oldest KIND bought for this firefight without a hex (event "
        '`fortification_placed`), under the placement limits of its purchase; revision 2 refused '
        '`fortify` at 2.6, so such a fortification could never be placed'))
    def places_fortification_at(self, step) -> bool:
        """2.38 "the actual on-map positioning of Fortifications may be deferred until that side sets up for the
        next CG Firefight during step 2.6": does `fortify` at `step` place one bought without a hex: at 2.6."""
        return step == StepId.SETUP

    @since(3, (
        '3.46/3.461: the one bonus the lists name, Leadership (3.46, Disabled and Immobilized '
        "repairs), is the best leader's in the item's hex, from the OB (rulings R30, R33); where the "
        'item has no recorded hex (a SW stands with a possessor the ledger does not know) `repair '
        "--leadership N` is taken as typed, and only as the modifier of one of the side's leaders in "
        'play; `--drm` states the penalties the ledger cannot see (Inexperience, Captured Use, '
        'Ammunition Shortage), 0 or more, on `repair` and `recall` (3.461 lists penalties only)'))
    def repair_leadership_from_ob(self, kind: str) -> bool:
        """3.46: does a `kind` repair take its Leadership from the OB (not typed, ruling R30), and its stated DRMs as
        penalties only (0 or more), not the `--drm` stated as it is: yes."""
        return True

    @same_change(repair_leadership_from_ob)
    def recall_drm_refusal(self, drm: int) -> str | None:
        """3.461: why a recall's stated `--drm` is refused: the list names penalties only (Inexperience, Captured
        Use, Ammunition Shortage), 0 or more."""
        if drm < 0:
            return (f"--drm {drm}: 3.461 lists penalties only (Inexperience, Captured Use, Ammunition Shortage): "
                    "0 or more")
        return None

    @since(3, (
        '3.52 dagger: an Original 6 against a Known minefield or Panji owes the Casualty Reduction of'
        ' one MMC before 3.52 is left (`status` pending: `plcg casualties SIDE --reduced '
        "UNIT[=COUNTER]`), in the rule's order: an Assault Engineer squad, else an Elite MMC, else "
        "1st Line, 2nd Line, Green, Conscript (the card's quality of the RG, else the counter table's"
        ' class); the squad becomes its HS (a HS is eliminated) and its CVP count (ruling R58); '
        'revision 2 logged the reduction and reduced nobody'))
    def casualty_reduction_owed(self, original_6: bool) -> bool:
        """3.52 dagger: does a clearance whose Original 6 reduces one MMC (`original_6`) owe that Casualty
        Reduction before 3.52 is left."""
        return original_6

    @since(3, (
        '3.41: the squads the Disease & Starvation dr strikes are owed before 3.41 is left (`status` '
        'pending: `plcg disease SIDE --replaced UNIT[=COUNTER]`), counted in HS equivalents (a squad '
        '2, a HS 1); every Isolated squad or HS first ("must choose all Isolated units before '
        'applying Replacement to any non-Isolated unit"); each is ELR Replaced by the counter table '
        '(A19.13, ruling R34) and once per RePh; revision 2 named the number and replaced none'))
    def disease_hs_owed(self, dr: int) -> int | None:
        """3.41: how many HS equivalents the Disease & Starvation dr `dr` owes ELR Replaced before 3.41 is left."""
        return 2 * dr

    @since(3, (
        '3.42: leaving 3.42 recombines, in pairs, the same-type half-squads (one counter) of a side '
        'in one Friendly MLR (a connected part of its MLR hexes; a unit with no recorded hex is in '
        "its friendly MLR), into the squad of the RG's card whose HS it is, else the one squad of the"
        ' counter table with that HS (where two squads share it the pair stays: ask the players); the'
        ' second HS leaves play (`oob`: recombined). 3.43: a Hero combines only with an MMC within '
        'its MLR (by recorded hexes, ruling R33), and leaving 3.43 removes the Heroes beyond one per '
        'side ("until each side has <1 hero in play", read as at most one; the first in the OB stays)'))
    def half_squads_regroup(self) -> bool:
        return True

    @same_change(half_squads_regroup)
    def hero_combines_within_mlr(self, mmc_hex: str | None) -> bool:
        """3.43: does a Hero combine only with an MMC within its MLR ("any MMC within that MLR", by recorded hexes,
        ruling R33): where the MMC's hex (`mmc_hex`) is recorded; an MMC with none combines with any Hero."""
        return bool(mmc_hex)

    @since(3, (
        '2.351 / ruling R14 revised: the -1 goes with the Attack Option bought in this 2.3 whatever '
        'the order of the commands; an OBA DR made before the purchase is read again with the -1 when'
        ' the Attack Option is bought'))
    def oba_read_again_if_attack_bought(self, attack_bought: bool) -> bool:
        """2.351: is an OBA DR made now read again with the -1 should the side buy the Attack Option later in
        this 2.3 (ruling R14): yes while it has not bought it."""
        return not attack_bought

    @since(3, (
        'B24.121 / Table 23: rubble falls on non-Water Obstacle terrain only: falling rubble whose '
        'direction leads into a water hex of the card places none there (the roll says so), and `end '
        '--terrain HEX=rubble` on a water hex is refused (exit 3, B24.121); so a stream never grows '
        'Strategic Terrain (1.4)'))
    def rubble_may_fall_in(self, card_map, hx: str) -> bool:
        """B24.121 / Table 23: may rubble lie in `hx`: non-Water Obstacle terrain only."""
        return hx not in card_map.water

    @since(3, (
        '3.43-3.45: a crew is an MMC (ASL A1.1) for Battle Hardening (3.43, 3.44) and for the 3.45 '
        'limit on leaders generated (MMC on board), as it already was for placing one; revisions 1-2 '
        'counted squads and half-squads only there'))
    def is_mmc(self, kind) -> bool:
        """3.43-3.45: is this kind an MMC, for Battle Hardening (3.43, 3.44: the `harden` command and what
        `next` says was left unused) and the 3.45 limit on leaders generated: ASL A1.1's, a crew too."""
        return a1_1_mmc(kind)

    @since(3, (
        '3.2 / 3.23 (ruling R48): an Immobilized vehicle in an Isolated Location (3.215: never owed a'
        ' redeployment) is wrecked when 3.2 is left if beyond 3 hexes of a friendly MMC/AFV (3.23); '
        'revision 2 left it as it was. The rest of ruling R48 holds under every revision (promise 28,'
        ' issue 35): a unit that cannot redeploy (an Immobilized vehicle where `redeploy` refuses it,'
        ' revision 2 on; any unit whose side holds no friendly-controlled hex) owes no redeployment '
        'and meets 3.214, 3.216, 3.217 and 3.23 when 3.2 is left, and 3.46 owes no repair `repair` '
        'refuses where the item stands'))
    def isolated_immobilized_wrecked(self) -> bool:
        return True

    @since(3, (
        '1.31 / 2.421 (ruling R5 revised): in a Dual Night Assault (a night firefight both sides '
        'bought an Attack Option for) neither side is the Firefight Defender, so a CVP tie is a draw '
        '(`winner_rule` 2.421), unless `end --winner` names a side; revisions 1-2 gave it to the side'
        ' that moved second'))
    def winner_by_cvp(self, ff) -> tuple[str | None, str]:
        """Who wins the firefight `ff` on CVP, and by which rule. 1.31: the side that amassed more CVP (= the
        enemy's CVP lost) wins; a tie goes to the defender; in a Dual Attack the side that moved second is the
        defender (ruling R5); in a Dual Night Assault there is none, and a tie is a draw (2.421, ruling R5)."""
        amassed = {s: ff.cvp_lost[OTHER[s]] for s in ("axis", "allied")}
        if amassed["axis"] != amassed["allied"]:
            return max(amassed, key=lambda s: amassed[s]), "1.31"
        if ff.attacker:
            return OTHER[ff.attacker], "1.31"
        if ff.type == "dual" and ff.time == "night":
            return None, "2.421"
        return (OTHER[ff.move_first] if ff.move_first else None), "R5"

    @since(3, (
        '3.23 (ruling R95): an Immobilized vehicle is kept from its wreck by a friendly MMC, or a '
        'vehicle of an AFV RG, within 3 hexes ("MMC/AFV/Gun-armed Vehicle"); a vehicle of a `vehicle`'
        ' RG (the card gives no armament) no longer counts'))
    def vehicle_saves_only_if_afv(self) -> bool:
        return True

    @since(3, (
        '2.38 note 8 (ruling R97): a Set DC is bought only for a DC of the side that sets up on map '
        '(not In Reserve, not entering): one Set DC per such DC for the firefight; revision 2 bought '
        'one without any DC'))
    def set_dc_refusal(self, st, side: str) -> str | None:
        """2.38 note 8 (ruling R97): why the side may buy no (more) Set DC: "a DC available to a unit setting-up
        on-map (EXC: units set up In Reserve) may be set up ... as a set DC": each Set DC bought for this firefight
        is one of the side's DCs in play, not of an RG In Reserve or bought to enter."""
        def sets_up(u) -> bool:
            pur = st.purchase(u.purchase, side) if u.purchase else None
            return pur is None or not (pur.mode in ("reserve", "entry") and pur.firefight == st.firefight)

        dcs = [u for u in st.side_units(side) if u.kind == Kind.SW and u.name.strip().upper() == "DC"
               and u.status in (Status.AVAILABLE, Status.ON_MAP) and sets_up(u)]
        bought = sum(1 for f in st.ground.fortifications if f.side == side and f.kind == "set_dc"
                     and f.firefight == st.firefight)
        if bought >= len(dcs):
            have = f"{len(dcs)} ({', '.join(u.id for u in dcs)})" if dcs else "none"
            return (f"a Set DC is a DC available to a unit setting up on map (note 8): {side} has {have}, and "
                    f"{bought} Set DC(s) already bought for this firefight")
        return None

    @since(3, (
        'CG12 / 2.38 notes 6-7 (ruling R99): Booby Traps are bought as a level of the side in effect '
        'within its MLR (A, then B, then C; a level the card gives the side preexists), never in a '
        'hex: `fortify SIDE booby_traps --hex` is refused, and so is a purchase above Level C; '
        'revision 2 kept them as an item of one hex'))
    def bought_as_level(self, kind: str) -> bool:
        """CG12 / 2.38 notes 6-7 (ruling R99): is a fortification of `kind` bought as a level of the side in effect
        within its MLR, never in a hex: Booby Traps (A, then B, then C)."""
        return kind == "booby_traps"

    @since(3, (
        'ruling R49: what decides whether a command is legal is judged before its dice are rolled: '
        '`leader --commissar` takes the Commissar on a * row and keeps the leader rolled on any other'
        " (never refused after the roll); `redeploy --counter` and the half-squad a patrol's Reduced "
        'result may need are asked for, or refused, before the roll'))
    def legality_judged_before_roll(self) -> bool:
        return True

    @since(3, (
        '2.34 / 2.6 (ruling R50): a unit of an RG bought to enter (`--mode entry`) for this firefight'
        ' does not set up on the map (exit 3)'))
    def entering_units_do_not_set_up(self) -> bool:
        return True

    @since(3, (
        'play by email, sealed secrets (ruling R47): a shared fact records only what both copies '
        "know: an Idle Firefight's 2.41 determination lists no lost patrols or Air Support (each copy"
        " folds the loss of what it holds; the other side's were sealed, and the confirming copy "
        "refused the proposer's list)"))
    def shared_facts_known_to_both(self) -> bool:
        return True

    @since(3, (
        '2.6 (ruling R51): the side that sets up second may not begin before the side that sets up '
        'first has set up a unit (while it has one that may set up); the refusal names who sets up '
        'first'))
    def waits_for_first_side(self, setup_first: str | None, side: str, first_begun: bool) -> bool:
        """2.6 (ruling R51): must `side` wait: the side that sets up second may not begin before the side that sets
        up first has set up a unit (`first_begun`; while it has one that may set up, asked by the caller)."""
        return setup_first is not None and setup_first != side and not first_begun

    @since(3, (
        'play by email, sealed secrets (ruling R80): an Idle Firefight skips 2.6, so once 2.41 has '
        'determined it Idle each side reveals there, at 2.4, every purchase 2.6 would have revealed '
        '(`next` waits for both): its units are in the OB from then on (2.32), and 3.41, 3.46 and '
        '3.52 may name them (a Disease replacement of one was refused by the other copy for good)'))
    def idle_firefight_reveals_at_2_4(self) -> bool:
        return True

    @since(3, (
        'play by email, two-party dice (ruling R83, revising R44): each side commits once to a hash '
        'chain of answers; a roll outside a sealed step shows its own value with its commitment and '
        "is decided by the other side's next bundle, whose chain value (fixed before the roll) "
        'answers it: no reveal round trip; a signature over such a roll without its answer is refused'))
    def dice_answered_by_chain(self) -> bool:
        return True

    @since(3, (
        "play by email (ruling R84, extends R71 and R73): in a two-party campaign the firefight's end"
        " (`end`) takes effect at once, provisionally (the other side's next command confirms it, its"
        ' `reject` undoes it with everything after, unless dice were decided after it); a side whose '
        "`next` would confirm the other side's proposal to leave the step while only that side still "
        "owes something (its answer to this side's dice) proposes the leave in its place, so that the"
        " other side's `next` leaves; a side's command answers the other side's open two-party dice "
        'first'))
    def end_takes_effect_provisionally(self) -> bool:
        return True

    @since(3, (
        '2.74 / ruling R26: the DRM flags typed at Detection (`patrol --stealthy`, `--lax`, and '
        '`--sw-pp` or `--enemy-adjacent` where the ledger cannot tell) are recorded with the patrol '
        'and apply to its Return roll too (`patrol-return` has no such options; revision 2 left them '
        'off the Return roll)'))
    def patrol_flags_for_return(self, typed: dict, kept: tuple) -> dict:
        """2.74 / ruling R26: the DRM flags typed at Detection (those of `kept` given) that the patrol's Return roll
        takes too, recorded with the patrol."""
        return {k: typed[k] for k in kept if typed[k] is not None}

    @since(3, (
        '2.72 / 2.74 step 4: a unit that goes on a patrol loses HIP (its units go to a cloaking box, '
        'and the returned ones "may regain concealment as per CG11", not HIP), so 3.24 keeps no HIP '
        'for it; revision 2 kept it hidden through the firefight, a HIP never bought again'))
    def patrol_keeps_hip(self) -> bool:
        """2.72 / 2.74 step 4: does a unit that goes on a patrol keep HIP: no, its units go to a cloaking box, and
        the returned ones "may regain concealment as per CG11", not HIP."""
        return False

    @since(3, (
        '3.21 / ruling R86: a SW stands with its possessor (a MMC of its RG in its hex first, then '
        "its RG's leader, then any other MMC, then SMC there): it moves with it when the unit's end "
        "position is given (2.9) and when it redeploys (2.5, 3.2); 3.2 never owes a SW's redeployment"
        ' and a SW is not redeployed on a roll of its own (exit 3, rule 3.21); `position` places a SW'
        ' only where a MMC or SMC of its side stands (revision 2 refused it, and owed a lone SW a '
        '3.214 roll on the Infantry column)'))
    def sw_moves_with_possessor(self) -> bool:
        return True

    @same_change(sw_moves_with_possessor)
    def positioned_on_its_own(self, u) -> bool:
        """2.9 / ruling R86: may `end --position` (`position`) place `u` in a hex of its own: a SW only where a MMC
        or SMC of its side stands (it stands with its possessor)."""
        return True

    @same_change(sw_moves_with_possessor)
    def redeploys_on_its_own(self, u) -> bool:
        """3.21 / ruling R86: does `u` redeploy on a roll of its own: not a SW, which redeploys with the unit that
        possesses it ("Any SW/Gun in the unit's new hex/Location may be automatically possessed")."""
        return u.kind != Kind.SW

    @since(3, (
        "3.22 / ruling R91: the unit a patrol's Return result captures (14 or more) is a guarded "
        "prisoner, worth double its CVP (ruling R39's value) for the current firefight; revision 2 "
        'counted it once'))
    def patrol_loss_cvp_factor(self, to: str) -> int:
        """3.22: what a unit a patrol result strikes counts of its CVP: double for a captive, a guarded prisoner."""
        return 2 if to == "captured" else 1

    # ---- what the revisions' whole branches decide, given the facts at hand (issue 33 item 3: no switch is read
    # outside the rules package; each of these carries the mark of the change that brought it)

    @same_change(next_leaves_provisionally)
    def proposal_words(self, name, step) -> dict:
        """Ruling R71: what a proposal of the command `name` records beside the command: the step a `next` leaves."""
        return {"step": step} if name == "next" else {}

    @same_change(next_leaves_provisionally)
    def determined_without_consent(self, name) -> bool:
        """Ruling R71: is the command `name`, a 2.41 determination that rolls no dice, decided at once (it follows
        from what both sides revealed at 2.4 alone)."""
        return name == "determine"

    @same_change(next_leaves_provisionally)
    def done_first_waits(self, name) -> bool:
        """Ruling R71 (c): does the command `name`, given while only the other side still owes something at the
        step, wait for it as a proposal: a `next`."""
        return name == "next"

    @same_change(next_leaves_provisionally)
    def next_confirms(self, proposed) -> bool:
        """Ruling R71: does a side's `next` confirm the other side's proposal of the command `proposed`: any but an
        undo (the leave, the firefight's end, the 2.41 determination)."""
        return proposed != "undo"

    @same_change(next_leaves_provisionally)
    def acts_meanwhile(self, proposed) -> bool:
        """Ruling R71: while the other side proposes the command `proposed`, does this side still do its part of the
        step: while it proposes to leave it (`next`)."""
        return proposed == "next"

    @same_change(next_leaves_provisionally)
    def leaves_provisionally(self, name, asked: bool) -> bool:
        """Ruling R71 (a): does the command `name` leave the step at once, provisionally: a `next`, outside a step
        where the other side must be asked first (`asked`: 2.3)."""
        return name == "next" and not asked

    @same_change(next_leaves_provisionally)
    @same_change(end_takes_effect_provisionally)
    def fact_provisionally(self, name, shared: bool, open_to_reject: bool) -> bool:
        """Rulings R73, R84: does the command `name` (`shared`: a shared fact of ruling R68) take effect at once,
        provisionally, where the other side's rejection can still undo it (`open_to_reject`: two-party dice, outside
        a step where it is asked first): a shared fact, or the firefight's `end`."""
        return (shared or name == "end") and open_to_reject

    @same_change(end_takes_effect_provisionally)
    def proposes_in_turn(self, proposed) -> bool:
        """Ruling R84: may a side's `next`, done too, that would confirm the other side's proposal of `proposed`
        while only that side still owes something, propose in its place: a proposal to leave the step (`next`)."""
        return proposed == "next"

    @same_change(end_takes_effect_provisionally)
    def answers_first(self, waiting: bool) -> bool:
        """Ruling R84: does a side's command answer the other side's open two-party dice first (`waiting`: some wait
        for its answer)."""
        return waiting

    @same_change(reveals_in_commit_order)
    def repeat_commitment_refusal(self, name, by: str, open_now: int, owed: int) -> str | None:
        """Rulings R67, R118: why `by`'s commitment to the two-party dice of `name` is refused: it holds `open_now`
        open commitments to the same command already, as many as the step owes (`owed` times)."""
        if open_now and open_now >= owed:
            return (f"{name}: {by} is committed to these two-party dice already, as often as the step owes them; one "
                    "open commitment per command for each roll the step owes (rulings R67, R118)")
        return None

    @same_change(reveals_in_commit_order)
    def reveal_order_refusal(self, by: str, commit: str, first: str | None) -> str | None:
        """Ruling R67: why `by`'s reveal of the two-party dice `commit` is refused: `first`, committed earlier, is
        still open (no choosing among outcomes)."""
        if first is not None and first != commit:
            return (f"{by} reveals two-party dice {commit[:8]} before {first[:8]}, committed earlier: reveals go in "
                    "the order committed (ruling R67)")
        return None

    @same_change(reveals_in_commit_order)
    def claimable(self, withheld: bool) -> bool:
        """Ruling R67: may the other side claim a roll (`withheld`: its roller signed past its answer without
        revealing it)."""
        return withheld

    @same_change(reveals_in_commit_order)
    def withheld_by_signature(self, requests, side: str) -> list:
        """Ruling R67: the two-party dice (of `requests`, those not revealed) `side` withholds by signing: its own,
        answered, except one owed later (ruling R119: seal.deferred, which the fold asks of each)."""
        return [r for r in requests if r.side == side and r.answer is not None]

    @same_change(dice_answered_by_chain)
    def chain_refusal(self, two_party: bool) -> str | None:
        """Ruling R83: why a side's chain of answers is refused: the campaign rolls no two-party dice."""
        return None if two_party else "chain: a chain of answers is for two-party dice under rules revision 3 (ruling R83)"

    @same_change(dice_answered_by_chain)
    def answered_by_chain(self, live: bool, sealed_step: bool) -> bool:
        """Ruling R83: is a two-party roll committed now answered from the other side's chain: one is `live`, outside
        a step whose results are sealed (`sealed_step`: ruling R44 goes on there)."""
        return live and not sealed_step

    @same_change(dice_answered_by_chain)
    def needs_chain(self, other_signed: bool, has_chain: bool) -> bool:
        """Ruling R83: does a side commit to a new chain in its next bundle: from the first after the other side's
        first signature (`other_signed`), where it has none (`has_chain`)."""
        return other_signed and not has_chain

    @same_change(attack_choice_sealed)
    def seals_attack_choice(self, sealing: bool) -> bool:
        """Ruling R109: is a side's Attack Option choice sealed as it leaves 2.3, yes or no: where secrets are sealed."""
        return sealing

    @same_change(idle_firefight_reveals_at_2_4)
    def reveals_purchases_at_2_4(self, firefight_type) -> bool:
        """Ruling R80: are the purchases 2.6 would reveal revealed at 2.4: an Idle Firefight skips 2.6."""
        return firefight_type == "idle"

    @same_change(shared_facts_known_to_both)
    def idle_lists_losses(self, sealing: bool) -> bool:
        """Ruling R47: does an Idle Firefight's 2.41 determination list the lost patrols and Air Support: not where
        secrets are sealed (each copy folds the loss of what it holds)."""
        return not sealing

    @same_change(shared_facts_known_to_both)
    def checks_units_named(self, sealed_view: bool) -> bool:
        """Ruling R47: is a command checked for units the other copy cannot see (`sealed_view`: secrets sealed,
        outside a secret step, a side's command)."""
        return sealed_view

    @same_change(cg_objectives_end_campaign)
    def cg_end_names_winner(self, reason: str) -> bool:
        """1.3 / ruling R74: does the CG's end for `reason` (the CG Objectives, the last firefight; a concession
        names its own) record the winner the card's Victory Conditions give: yes."""
        return True

    @same_change(legality_judged_before_roll)
    def judges_before_roll(self, command: str) -> bool:
        """Ruling R49: is what `command`'s dice do not decide judged before they are rolled, never by the result
        they give (`redeploy --counter`, a patrol's half-squads, `leader --commissar`: the Commissar on a * row, the
        leader rolled on any other, ruling R92): yes."""
        return True

    @same_change(fortification_placement_limits)
    def fortification_limits_apply(self, kind: str) -> bool:
        """2.38: are the placement limits checked where a `kind` fortification goes (inside the friendly MLR, not in
        rubble, HIP by what hides, caves before a Cave Complex): yes."""
        return True

    @same_change(hardening_by_counter_table)
    def hardens_by_counter_table(self, kind) -> bool:
        """3.43-3.45: does a unit of `kind` Battle Harden by the counter table (ruling R34: the counter it becomes,
        Fanatic for an Elite MMC, the Hero an MMC combines with at 3.43), not to the counter typed: yes."""
        return True

    @same_change(first_side_sets_up_first)
    @same_change(option_a_leaves_units_in_place)
    def set_up_done(self, side: str, unit: str) -> tuple:
        """2.6, 3.34: what a unit's setup records done: the side's setup begun (2.41's order) and the unit set up this
        2.6 (no longer one left in place by Option A), as Done fields."""
        return (("setup", side), ("set", side, unit))

    @same_change(patrol_drms_from_units)
    def may_patrol_from(self, st, u, target: str) -> bool:
        """2.72: may `u` go on a patrol to `target`: from the friendly MLR within 10 hexes of it (a unit with no hex
        recorded may)."""
        if not u.hex:
            return True
        return st.map_control().situation(u.hex, u.side) == "friendly_mlr" and st.grid().distance(u.hex, target) <= 10

    @same_change(patrol_drms_from_units)
    def patrol_team(self, team):
        """2.74 / ruling R26: the patrol's units its Return roll takes its DRMs from (`team`, recorded at Detection)."""
        return team

    @same_change(patrol_drms_from_units)
    def keeps_patrol_team(self, losses) -> bool:
        """2.72: is a patrol's team recorded for its Return roll: where its Detection struck units (`losses`)."""
        return losses is not None

    @same_change(patrol_keeps_hip)
    def patrol_hip_lost(self, units: tuple) -> tuple:
        """2.72 / 2.74 step 4: the units of a patrol that lose HIP: all (they go to a cloaking box)."""
        return units

    @same_change(half_squads_regroup)
    def regroups_leaving(self, step: StepId) -> bool:
        """3.42-3.43 / ruling R62: does leaving `step` regroup: 3.42 recombines the half-squads, 3.43 removes the
        Heroes beyond one per side: yes."""
        return True

    @same_change(strategic_terrain_grows)
    def strategic_terrain(self, base: frozenset, grown: Callable[[], frozenset]) -> frozenset:
        """1.4: the Strategic Terrain: the card's (`base`) and every hex the campaign has since made one (`grown()`).

        `grown` stays a callable, for speed: every read of map control asks this (thousands of times in a replay),
        and what the campaign grew is read from the units in play and the terrain kept (CampaignState._strategic_grown,
        memoised on the state), which revision 1 never needs."""
        return grown()

    @same_change(weather_every_firefight)
    def visits_weather(self, initial: bool) -> bool:
        """2.2 / ruling R27: does the firefight visit 2.2 after 2.1: every firefight does."""
        return True

    def ruling_marks(self, st, cmd: dict) -> dict:
        """Play by email, rulings R110 (`setups`: a `next` at 2.6), R111 (`own_rolls`: a `next` or `confirm`), R112
        (`mines_at_setup`: a `fortify` at 2.3), R119 (`sealed_rolls`: a `next` or `confirm` at 2.1 or 2.3) and R127
        (`their_results`: a `next`): the command as the campaign decides it. Each ruling marks the commands it
        governs, so that a log of before it, without the mark, is decided as before; from the ledger's conventions 2
        on, the campaign holds each ruling wherever the ledger marks it, whatever the command carries (a mark is the
        sender's word, and a player's own client, or a hand-made bundle, could leave it out). A campaign started
        before decides by the marks its commands carry, as the release that wrote them did."""
        name = cmd.get("name")
        if name not in _MARKED or st.pbem is None or not conventions(st, MARKS_HELD):
            return cmd  # (asked of every command: most are none of the three it marks)
        step = st.step
        held = [mark for mark, holds in (
            ("setups", name == "next" and step == StepId.SETUP),
            ("mines_at_setup", name == "fortify" and step == StepId.PURCHASE),
            ("own_rolls", name in ("next", "confirm")),
            ("their_results", name == "next"),
            ("sealed_rolls", name in ("next", "confirm") and step in (StepId.CP, StepId.PURCHASE)),
        ) if holds and cmd.get(mark) is not True]
        return {**cmd, **dict.fromkeys(held, True)} if held else cmd


class Revision2(Rules):
    """Revision 2: what revision 3 changed, as revision 2 decided it."""

    revision = 2

    def cg_objectives_end_campaign(self) -> bool:
        return False

    def cg_objectives(self, victory) -> tuple:
        return ()

    def reserve_for_own_firefight_only(self) -> bool:
        return False

    def in_reserve_at_setup(self, st, u, pur) -> bool:
        return u.status == Status.RESERVE or (u.kind == Kind.LEADER and pur is not None and pur.mode == "reserve")

    def reserve_ends_with_firefight(self, st) -> list:
        return []

    def option_a_leaves_units_in_place(self) -> bool:
        return False

    def left_in_place(self, st, u, hx: str, set_this_2_6: bool) -> bool:
        return False

    def hip_when_isolated(self, hip: bool) -> bool:
        return hip

    def keeps_hip_at_setup(self, u, hx: str) -> bool:
        return u.hip

    def sets_up_again_at_2_5(self, step, option: str | None) -> bool:
        return False

    def distance_to_fmlr(self, state, mc, frm: str, side: str) -> int | None:
        """Revision 2 measured to the side's MLR, the Isolated pocket included."""
        return mc.distance_to_mlr(frm, side)

    def in_enemy_mlr_for_redeployment(self, situation: str) -> bool:
        return situation == "enemy_mlr"

    def setup_closed(self, ff) -> bool:
        return False

    def cthc_per_strategic_hex(self) -> bool:
        return False

    def is_another_cthc(self, clusters: list, frm: str | None, to: str) -> bool:
        """Revision 2: a CTHC was a connected group, and `to` outside the unit's own."""
        here: set = next((c for c in clusters if frm in c), set()) if frm else set()
        return to not in here

    def sets_up_with_its_rg(self, st, u, pur) -> bool:
        return False

    def patrol_team_refusal(self, st, side: str, team: list, hx: str, mc) -> str | None:
        """Revision 2: from one friendly MLR, within 10 hexes of the mission hex."""
        g = st.grid()
        for u in team:
            if u.hex and (mc.situation(u.hex, side) != "friendly_mlr" or g.distance(u.hex, hx) > tables.PATROL_UNITS_WITHIN):
                return f"{u.id} in {u.hex} is not a unit of the {side} MLR within 10 hexes of {hx}"
        return None

    def mission_hex_accessible(self, card_map, hx: str) -> bool:
        return True

    def patrol_class(self, rg: str | None, counter: str | None) -> str | None:
        """Revision 2: the RG's quality alone."""
        return rg

    def patrol_reduced_leader_becomes(self, leader) -> str:
        return "eliminated"

    def patrol_leader_refusal(self, st, side: str, leader) -> str | None:
        """Revision 2: the rank by the ledger's convention for the counter (counter table, ruling R34)."""
        return _patrol_leader_refusal(st, side, leader, convention=True)

    def next_leaves_provisionally(self) -> bool:
        return False

    def reveals_in_commit_order(self) -> bool:
        return False

    def attack_choice_sealed(self) -> bool:
        return False

    def signature_refusal(self, signed, seq: int) -> str | None:
        return None

    def encircled_1tc_hit(self, final: int, morale: int, immobile_vehicle: bool) -> tables.Hit:
        """Revision 2 eliminated every unit failing, on a row it named 'morale or more'."""
        return tables.Hit("3.17", f"<={morale}" if final <= morale else f">{morale}",
                          "passed" if final <= morale else "eliminated")

    def reph_loss_counts(self, step) -> bool:
        return False

    def elite_class_for_hardening(self, card_class: str | None) -> str | None:
        """Revision 2: the counter table's class."""
        return None

    def fortification_notes_apply(self, kind: str) -> bool:
        return False

    def places_fortification_at(self, step) -> bool:
        """Revision 2 refused `fortify` at 2.6."""
        return False

    def repair_leadership_from_ob(self, kind: str) -> bool:
        return False

    def recall_drm_refusal(self, drm: int) -> str | None:
        return None

    def casualty_reduction_owed(self, original_6: bool) -> bool:
        """Revision 2 logged the reduction and reduced nobody."""
        return False

    def disease_hs_owed(self, dr: int) -> int | None:
        """Revision 2 named the number and replaced none: nothing owed."""
        return None

    def half_squads_regroup(self) -> bool:
        return False

    def hero_combines_within_mlr(self, mmc_hex: str | None) -> bool:
        return False

    def oba_read_again_if_attack_bought(self, attack_bought: bool) -> bool:
        return False

    def rubble_may_fall_in(self, card_map, hx: str) -> bool:
        return True

    def is_mmc(self, kind) -> bool:
        """3.43-3.45 left the crew out: squads and half-squads only (3.45 placement took A1.1's all along)."""
        return kind in (Kind.SQUAD, Kind.HALF_SQUAD)

    def isolated_immobilized_wrecked(self) -> bool:
        return False

    def winner_by_cvp(self, ff) -> tuple[str | None, str]:
        """A Dual Night Assault's tie, too, goes to the side that moved second (ruling R5)."""
        winner, rule = super().winner_by_cvp(ff)
        if rule == "2.421":
            return (OTHER[ff.move_first] if ff.move_first else None), "R5"
        return winner, rule

    def vehicle_saves_only_if_afv(self) -> bool:
        return False

    def set_dc_refusal(self, st, side: str) -> str | None:
        """Revision 2 bought a Set DC without any DC."""
        return None

    def bought_as_level(self, kind: str) -> bool:
        """Revision 2 kept Booby Traps as an item of one hex."""
        return False

    def legality_judged_before_roll(self) -> bool:
        return False

    def entering_units_do_not_set_up(self) -> bool:
        return False

    def shared_facts_known_to_both(self) -> bool:
        return False

    def waits_for_first_side(self, setup_first: str | None, side: str, first_begun: bool) -> bool:
        return False

    def idle_firefight_reveals_at_2_4(self) -> bool:
        return False

    def dice_answered_by_chain(self) -> bool:
        return False

    def end_takes_effect_provisionally(self) -> bool:
        return False

    def patrol_flags_for_return(self, typed: dict, kept: tuple) -> dict:
        return {}

    def patrol_keeps_hip(self) -> bool:
        return True

    def sw_moves_with_possessor(self) -> bool:
        return False

    def positioned_on_its_own(self, u) -> bool:
        """Revision 2 refused a SW's position: give the MMC's or SMC's hex."""
        return u.kind != Kind.SW

    def redeploys_on_its_own(self, u) -> bool:
        return True

    def patrol_loss_cvp_factor(self, to: str) -> int:
        return 1

    def proposal_words(self, name, step) -> dict:
        return {}

    def determined_without_consent(self, name) -> bool:
        return False

    def done_first_waits(self, name) -> bool:
        return False

    def next_confirms(self, proposed) -> bool:
        return False

    def acts_meanwhile(self, proposed) -> bool:
        return False

    def leaves_provisionally(self, name, asked: bool) -> bool:
        return False

    def fact_provisionally(self, name, shared: bool, open_to_reject: bool) -> bool:
        return False

    def proposes_in_turn(self, proposed) -> bool:
        return False

    def answers_first(self, waiting: bool) -> bool:
        return False

    def repeat_commitment_refusal(self, name, by: str, open_now: int, owed: int) -> str | None:
        return None

    def reveal_order_refusal(self, by: str, commit: str, first: str | None) -> str | None:
        return None

    def claimable(self, withheld: bool) -> bool:
        return False

    def withheld_by_signature(self, requests, side: str) -> list:
        return []

    def chain_refusal(self, two_party: bool) -> str | None:
        return "chain: a chain of answers is for two-party dice under rules revision 3 (ruling R83)"

    def answered_by_chain(self, live: bool, sealed_step: bool) -> bool:
        return False

    def needs_chain(self, other_signed: bool, has_chain: bool) -> bool:
        return False

    def seals_attack_choice(self, sealing: bool) -> bool:
        return False

    def reveals_purchases_at_2_4(self, firefight_type) -> bool:
        return False

    def idle_lists_losses(self, sealing: bool) -> bool:
        return True

    def checks_units_named(self, sealed_view: bool) -> bool:
        return False

    def cg_end_names_winner(self, reason: str) -> bool:
        """Revision 2 recorded no winner."""
        return False

    def judges_before_roll(self, command: str) -> bool:
        """Revision 2 judged a command's legality by the result of its dice (ruling R49 came later)."""
        return False

    def set_up_done(self, side: str, unit: str) -> tuple:
        return (("setup", side),)

    def patrol_hip_lost(self, units: tuple) -> tuple:
        return ()

    def regroups_leaving(self, step: StepId) -> bool:
        return False


class Revision1(Revision2):
    """Revision 1, the first release: what revision 2 changed, as revision 1 decided it."""

    revision = 1

    def purchase_number(self, st, side: str, rg: str) -> int:
        """Revision 1 numbered the purchases of an RG across both sides."""
        return sum(st.purchase_count.get((s, rg), 0) for s in OTHER) + 1

    def typed_leadership(self, typed: int | None, rule: str) -> tuple | None:
        """Revision 1 took `--leadership` as typed."""
        return (Drm(rule, "leadership", typed),) if typed else ()

    def takes_isolated_drm(self, situation: str, unit) -> bool:
        return situation == "isolated"

    def far_from_fmlr(self, distance: int | None) -> bool:
        return distance is None or distance > 6

    def friendly_mlr_drm_applies(self, situation: str) -> bool:
        return True

    def redeployment_change(self, st, u, result: str, given, strict: bool = True) -> tuple[str | None, bool]:
        """Revision 1 recorded the result and changed no counter."""
        return None, False

    def hiding_lost_in_redeployment(self, situation: str) -> tuple[bool, bool]:
        return False, False

    def hardening_by_counter_table(self) -> bool:
        return False

    def hardening_applied(self, p) -> tuple:
        """Revision 1 recorded a `harden --to` as typed and changed no counter."""
        return None, False, None

    def repair_limits_apply(self) -> bool:
        return False

    def repair_command_refusal(self, item: str, kind: str, drm: int, failed_this_reph: bool) -> str | None:
        return None

    def failed_repair_kept(self, kind: str) -> bool:
        return False

    def evacuated_leader_lost(self, st, u) -> None:
        """Revision 1 counted it nowhere."""

    def expended_at_end(self, st, oba_used) -> list:
        """Revision 1 retained them."""
        return []

    def redeploys_once_per_reph(self) -> bool:
        return False

    def redeployed_marks_cleared_leaving_2_5(self, to) -> bool:
        return False

    def redeployed_marks_cleared_at_2_1(self, played: bool) -> bool:
        return True

    def setup_hex_refusal(self, hx: str, side: str, situation: str) -> str | None:
        """Revision 1: checked after (outside the Initial Firefight, Reserve aside)."""
        return None

    def in_reserve_at_setup(self, st, u, pur) -> bool:
        """Revision 1: the units In Reserve alone, their RG's leaders setting up as any unit."""
        return u.status == Status.RESERVE

    def weather_every_firefight(self) -> bool:
        return False

    def dual_attack_drs_at(self, step) -> tuple[str, ...]:
        """Revision 1: `determine` made both drs at 2.4."""
        return ("setup", "move") if step == StepId.DETERMINATION else ()

    def end_terrain_item(self, text: str) -> items.Kept:
        """Revision 1 kept the word as typed."""
        return items.Kept.parse(text)

    def control_refusal(self, control: list) -> str | None:
        return None

    def patrol_drms_from_units(self, kind: str) -> bool:
        return False

    def patrol_leader_refusal(self, st, side: str, leader) -> str | None:
        """Revision 1 let any leader lead."""
        return None

    def redeployment_to_nearest_cthc(self) -> bool:
        return False

    def redeploys_to_nearest_cthc(self, situation: str) -> bool:
        return False

    def redeploying_first(self, owed: list, side: str, unit: str) -> list:
        return owed

    def owes_redeployment(self, rule: str) -> bool:
        return True

    def eliminated_clearance_leaves(self, item: str) -> str | None:
        """Revision 1 read B24.71: a Trailbreak across the hex, the rubble staying."""
        return "trailbreak" if item == "rubble" else None

    def original_6_reduces(self, item: str, here: list) -> bool:
        return True

    def strategic_terrain_grows(self) -> bool:
        return False

    def fortification_placement_limits(self) -> bool:
        return False

    def hip_refusal(self, st, u, still_hip: bool) -> str | None:
        return None

    def hip_priced_as(self, unit_kind: str, unit_type: str) -> str:
        return unit_type

    def firefight_end_lifts_isolation(self, st) -> None:
        """Revision 1 kept the mark."""

    def option_a_defender_first(self) -> bool:
        return False

    def redeployment_marks_side_begun(self, step) -> bool:
        return False

    def defender_first_at_2_5(self, option: str | None) -> bool:
        return False

    def first_side_sets_up_first(self) -> bool:
        return False

    def sets_up_no_more(self, setup_first: str | None, side: str, other_begun: bool) -> bool:
        return False

    def generated_leader_hex_refusal(self, st, side: str, hx: str) -> str | None:
        """Revision 1 recorded a `--hex` as typed, unchecked."""
        return None

    def encircled_after_1tc(self, outcome: str) -> bool:
        """Revision 1 removed the marker."""
        return False

    def fortification_limits_apply(self, kind: str) -> bool:
        return False

    def hardens_by_counter_table(self, kind) -> bool:
        """Revision 1: the counter as given (`harden --to`), no Fanatic, no Hero."""
        return False

    def set_up_done(self, side: str, unit: str) -> tuple:
        return ()

    def may_patrol_from(self, st, u, target: str) -> bool:
        return True

    def patrol_team(self, team):
        return None

    def keeps_patrol_team(self, losses) -> bool:
        return False

    def strategic_terrain(self, base: frozenset, grown: Callable[[], frozenset]) -> frozenset:
        return base

    def visits_weather(self, initial: bool) -> bool:
        """Revision 1: 2.2 in the Initial Firefight only."""
        return initial


# one instance per revision, made once: asked a million times by a long audit (issue 28)
RULES: dict[int, Rules] = {1: Revision1(), 2: Revision2(), 3: Rules()}


def revision(st) -> int:
    """The revision in force at the state's firefight (an upgrade takes effect at its 2.1)."""
    rev = st.rules_revision
    for ff, to in st.rules_upgrades:
        if st.firefight >= ff:
            rev = to
    return rev


def rules_for(st) -> Rules:
    """The rules of the revision in force at the state's firefight."""
    if not st.rules_upgrades:  # the usual campaign
        return RULES[st.rules_revision]
    return RULES[revision(st)]


def changes() -> list[tuple[str, int, str]]:
    """(decision, the revision that brings the change, what changes), in the order `Rules` declares them."""
    return [(name, n, text) for name, fn in vars(Rules).items() for n, text in getattr(fn, "changes", ())]


def markdown_table() -> str:
    """docs/revisions.md's table of the changes: one row per change, naming the decisions it changed (the
    methods marked with the same `since`)."""
    rows: dict[tuple[int, str], list[str]] = {}
    for name, n, text in changes():
        rows.setdefault((n, text), []).append(f"`{name}`")
    lines = ["| decision (`Rules` method) | from revision | what changes |", "|---|---|---|"]
    lines += [f"| {', '.join(names)} | {n} | {text} |" for (n, text), names in rows.items()]
    return "\n".join(lines)

