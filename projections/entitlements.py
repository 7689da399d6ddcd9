"""What a step left unused, said when `next` leaves it, as ruling R3's "carried over, unspent" says of CP at
2.3 (issue 27 item 10): the 3.44 Battlefield Promotions and the 3.45 leader results not taken are lost."""
from __future__ import annotations

from cg.rules import hardening_mmc
from cg.state import SIDES
from cg.units import Kind
from cg.sequence import StepId


def unused_after(st, left: str, sides=SIDES) -> list[str]:
    """Lines for the entitlements the step `left` gave and nobody used (`st`: the state after leaving it)."""
    out = []
    is_mmc = hardening_mmc(st)
    for side in sides:
        hardened = set(st.reph.hardened_now[side])
        mine = [u for u in st.side_units(side) if u.id not in hardened]
        if left == StepId.PROMOTIONS:
            used = sum(1 for x in hardened if is_mmc(st.unit(x, side).kind))
            left_over = min(st.reph.promotions[side] - used, sum(1 for u in mine if is_mmc(u.kind)))
            if left_over > 0:
                out.append(f"left unused (3.44): {side} could have Battle Hardened {left_over} more MMC "
                           f"(the dr allowed {st.reph.promotions[side]}, {used} hardened); lost at `next`")
        elif left == StepId.LEADERS:
            used = sum(1 for x in hardened if st.unit(x, side).kind == Kind.LEADER)
            slots = st.reph.leader_result[side] - used - st.reph.generated[side]
            could = sum(1 for u in mine if u.kind == Kind.LEADER) + max(0, st.reph.may_generate[side] - st.reph.generated[side])
            left_over = min(slots, could)
            if left_over > 0:
                out.append(f"left unused (3.45): {side} could have hardened or generated {left_over} more "
                           f"leader(s) (the dr allowed {st.reph.leader_result[side]}); lost at `next`")
    return out
