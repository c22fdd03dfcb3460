"""Heavy work holds nobody else up in the PostgreSQL mode either.

Before (issue 29): a room held its row lock in PostgreSQL while its lab applied an
action, and with four sockets running graph-traversal's heaviest questions a bystander
on another lab waited over a second. Now every mode applies in memory first, then
appends in a short transaction; with several processes a room's writer lock in Redis
orders its actions instead (playground/rooms/writer.py).
"""

import pytest

from playground.liveserver import start_daphne
from playground.stress import HEAVIEST, bystander_holds
from simulators.labs import LABS

pytestmark = pytest.mark.attack


@pytest.fixture
def server(cluster_env):
    var_dir, env = cluster_env
    daphne = start_daphne(var_dir, env, name="heavy")
    yield daphne
    daphne.kill()


async def test_every_labs_heaviest_work_leaves_a_bystander_under_200_ms(server):
    await bystander_holds(server, LABS, per_lab=1, seconds=10, most=0.2)


async def test_eight_attackers_a_lab_leave_a_bystander_under_a_second(server):
    await bystander_holds(server, HEAVIEST, per_lab=8, seconds=8, most=1.0)
