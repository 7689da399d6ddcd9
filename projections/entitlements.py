"""What a step left unused, said when `next` leaves it, as ruling R3's "carried over, unspent" says of CP at
2.3 (issue 27 item 10): the 3.44 Battlefield Promotions and the 3.45 leader results not taken are lost.
And what a decided roll allows while the step still stands (issue 37 item 9: `sync` says it)."""
from __future__ import annotations

from cg.rules import rules_for
from cg.state import SIDES, Done
from cg.units import Kind
from cg.sequence import StepId


def _left_over(st, step: str, side: str) -> tuple[int, int, int]:
    """(how many more the side's 3.44 or 3.45 result lets it take, the result, how many taken)."""
    hardened = set(st.reph.hardened_now[side])
    mine = [u for u in st.side_units(side) if u.id not in hardened]
    if step == StepId.PROMOTIONS:
        is_mmc = rules_for(st).is_mmc
        used = sum(1 for x in hardened if is_mmc(st.unit(x, side).kind))
        return min(st.reph.promotions[side] - used, sum(1 for u in mine if is_mmc(u.kind))), \
            st.reph.promotions[side], used
    used = sum(1 for x in hardened if st.unit(x, side).kind == Kind.LEADER)
    slots = st.reph.leader_result[side] - used - st.reph.generated[side]
    could = sum(1 for u in mine if u.kind == Kind.LEADER) + max(0, st.reph.may_generate[side] - st.reph.generated[side])
    return min(slots, could), st.reph.leader_result[side], used


def unused_after(st, left: str, sides=SIDES) -> list[str]:
    """Lines for the entitlements the step `left` gave and nobody used (`st`: the state after leaving it)."""
    out = []
    for side in sides:
        if left not in (StepId.PROMOTIONS, StepId.LEADERS):
            continue
        left_over, allowed, used = _left_over(st, left, side)
        if left_over > 0 and left == StepId.PROMOTIONS:
            out.append(f"left unused (3.44): {side} could have Battle Hardened {left_over} more MMC "
                       f"(the dr allowed {allowed}, {used} hardened); lost at `next`")
        elif left_over > 0:
            out.append(f"left unused (3.45): {side} could have hardened or generated {left_over} more "
                       f"leader(s) (the dr allowed {allowed}); lost at `next`")
    return out


def allowed_now(st, side: str) -> list[str]:
    """Ruling R111: what SIDE's decided 3.44 or 3.45 roll still lets it do at this step, before its `next`."""
    if st.ended or st.step not in (StepId.PROMOTIONS, StepId.LEADERS) or \
            Done("promote" if st.step == StepId.PROMOTIONS else "leaders", side) not in st.reph.done:
        return []
    left_over, allowed, _used = _left_over(st, st.step, side)
    if left_over <= 0:
        return []
    if st.step == StepId.PROMOTIONS:
        return [f"your 3.44 dr allows {left_over} more MMC to Battle Harden (of {allowed}): plcg harden {side} UNIT"]
    return [f"your 3.45 result allows {left_over} more leader(s) to harden or be generated (of {allowed}): "
            f"plcg harden {side} LEADER, plcg leader {side} --generated"]
