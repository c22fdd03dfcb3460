"""rate-limit-race: clients interleaved step by step against 100 requests a minute.

The limit is kept in one counter, the key `rate:user42` of a Redis-like store. Two to
four clients each send one request at the same moment; each counts it in one of five
ways (`programs.py`), and the order their steps run in (an interleaving) decides what
the counter ends at and how many requests were admitted. Read, check, write (GET,
compare, SET) lets two clients read the same 99 and both admit: 101 in the minute.
INCR counts in one step: its replies are 100 and 101, and 100 are admitted. INCR then
EXPIRE as two commands leaves a key with no expiry when the client that made it dies
between them; a Lua script, or SET … EX 60 NX before the INCR, does not.

Choices made here, so the lab says what it does:

- The race starts at second 0 of the lab's clock. With n > 0 already admitted the
  counter holds n and expires in `START_TTL_S` seconds (the minute is half over, its
  first request gave the key its expiry); with 0 there is no key yet: a new minute.
- Steps take no time; only `pass_time` moves the clock, and a key is deleted once its
  expiry comes. A reset, or any change to the race, starts it again at second 0.
- A refused read-check-write request writes nothing, and INCR then EXPIRE sends its
  EXPIRE only when its INCR replied 1 (Redis's documented pattern): such steps run
  as steps that send nothing ("skipped"). A read-check-write SET keeps the key's
  expiry (KEEPTTL), or gives one when its GET found no key (SET … EX 60).
- A crashed client dies after the last step it ran: its steps not run are dropped
  from the order; a decision it made stands. A client with nothing left to run, or
  crashed already, cannot crash.
- `every_ordering` plays every interleaving of the case (mode, clients, admitted
  before) from the race's start, without crashes or time passing, and leaves the
  race being played as it was.
- Later requests (`new_request`) are user42's next requests, each run whole with no
  other step between its commands, at the clock's current second.
- Randomness: `shuffle` draws from the stream `rate-limit-race.shuffle:<n>`, n being
  the number of shuffles done before, so each draw is new and a replay draws the same.
"""

from simulators.engine.declaration import ActionError
from simulators.engine.i18n import gettext_noop as _
from simulators.engine.lab import Lab
from simulators.engine.rng import make_rng
from simulators.labs.rate_limit_race.declaration import (
    ACTIONS,
    DEFAULT_ADMITTED,
    DEFAULT_CLIENTS,
    MAX_ORDERINGS,
    OPTIONS,
    RateLimitRaceCost,
)
from simulators.labs.rate_limit_race.orderings import (
    CLIENT_NAMES,
    every_ordering,
    order_problem,
    ordering_count,
    round_robin,
    shuffled,
    split_order,
)
from simulators.labs.rate_limit_race.programs import (
    ABSENT,
    DECIDES_AT,
    KEY,
    LIMIT,
    READ_CHECK_WRITE,
    START,
    STEP_CONDITIONS,
    STEP_COUNTS,
    WINDOW_S,
    Key,
    Local,
    planned,
    run_step,
    step_kind,
)
from simulators.labs.rate_limit_race.tour import TOUR

START_TTL_S = 30  # seconds left of the minute when the race starts with a counter
LATER_SHOWN = 5  # the later requests the snapshot describes one by one


def starting_key(admitted: int) -> Key:
    """The counter when the race starts: none in a new minute, else `admitted`."""
    return ABSENT if admitted == 0 else (admitted, START_TTL_S)


class RateLimitRaceLab(Lab):
    """A rate limit of 100 a minute in one counter, and clients racing on it."""

    slug = "rate-limit-race"
    options = OPTIONS
    actions = ACTIONS
    tour = TOUR
    stress = (
        ("set_clients", {"count": 3}),
        ("every_ordering", {}),
        ("new_request", {"count": 200}),
        ("run_all", {}),
    )
    # outcomes the snapshot gives each client, and local checks give as replies
    words = (_("admitted"), _("refused"), _("pending"), _("crashed"))
    cost_model = RateLimitRaceCost
    creation_cost = 150  # 85-100 µs as `make bench` measures it (5 µs warm)
    frame_cost = 500  # snapshot, metrics and digest: 280-390 µs (50-150 warm)

    def __init__(self, seed: int = 0, **options) -> None:
        super().__init__(seed, **options)
        self.mode = READ_CHECK_WRITE
        self.client_count = DEFAULT_CLIENTS
        self.starting_admitted = DEFAULT_ADMITTED
        self.order = round_robin(self.mode, self.client_count)
        self.shuffles = 0
        self.enumeration: dict | None = None
        self._start_race()

    def _start_race(self) -> None:
        """The race at its start: the counter as it was, the order, nothing run."""
        self.plan = list(self.order)  # the order, less the steps of crashed clients
        self.position = 0  # steps of `plan` run
        self.clock = 0
        self.key: Key = starting_key(self.starting_admitted)
        self.local: list[Local] = [START] * self.client_count
        self.ran: dict[str, dict] = {}  # step id → what it sent and got back
        self.crashed: list[dict] = []
        self.later: list[dict] = []  # the last LATER_SHOWN requests after the race
        self.later_counts = {"admitted": 0, "refused": 0}
        self.expired_at: int | None = None

    # ----- the race -------------------------------------------------------------------
    def _run(self, step_id: str) -> dict:
        """Run one step of the plan; the event that says what it sent and got."""
        client = CLIENT_NAMES.index(step_id[0])
        number = int(step_id[1:])
        before = self.local[client]
        ran = run_step(self.mode, number, self.key, before, self.clock)
        self.key, self.local[client] = ran.key, ran.local
        self.position += 1
        record = {
            "seq": self.position,
            "command": ran.command,
            "reply": ran.reply,
            "skipped": ran.command is None,
            **self._key_after(),
        }
        self.ran[step_id] = record
        event = {"type": "step", "id": step_id, "client": step_id[0], **record}
        if number == DECIDES_AT[self.mode]:
            event["admitted"] = ran.local.admitted
        return event

    def _key_after(self) -> dict:
        value = self.key[0]
        ttl = None if value is None else self._ttl()
        return {"value_after": value, "ttl_after": ttl}

    def _ttl(self) -> int | str:
        expires_at = self.key[1]
        return "none" if expires_at is None else expires_at - self.clock

    def _check_not_over(self) -> None:
        if self.position >= len(self.plan):
            raise ActionError(
                "race_over",
                _("every step has run: press Reset to play the race again"),
            )

    def do_step(self) -> list[dict]:
        """Run the next step of the order."""
        self._check_not_over()
        events = [self._run(self.plan[self.position])]
        if self.position == len(self.plan):
            events.append(self._race_done())
        return events

    def do_run_all(self) -> list[dict]:
        """Run every step left, in the order."""
        self._check_not_over()
        events = [self._run(step) for step in self.plan[self.position :]]
        return [*events, self._race_done()]

    def _race_done(self) -> dict:
        admitted = self._admitted()
        return {
            "type": "race_done",
            "admitted": admitted,
            "limit": LIMIT,
            "overshoot": max(0, admitted - LIMIT),
            "value": self.key[0],
        }

    def do_reset(self) -> list[dict]:
        """Back to the start of the race."""
        self._start_race()
        return [self._reset_event("reset")]

    def _reset_event(self, reason: str) -> dict:
        return {
            "type": "race_reset",
            "reason": reason,
            "mode": self.mode,
            "clients": self.client_count,
            "starting_admitted": self.starting_admitted,
            "order": list(self.order),
        }

    # ----- the case -------------------------------------------------------------------
    def do_set_mode(self, mode: str) -> list[dict]:
        """Count the other way; the race starts again in the course's order."""
        self.mode = mode
        self.order = round_robin(mode, self.client_count)
        self._start_race()
        return [self._reset_event("mode")]

    def do_set_clients(self, count: int) -> list[dict]:
        """Race `count` clients; the race starts again in the course's order."""
        self.client_count = count
        self.order = round_robin(self.mode, count)
        self._start_race()
        return [self._reset_event("clients")]

    def do_set_admitted(self, count: int) -> list[dict]:
        """Start the race with `count` requests admitted this minute (0: none, no
        key); the order stays."""
        self.starting_admitted = count
        self._start_race()
        return [self._reset_event("admitted")]

    def do_set_order(self, order: str) -> list[dict]:
        """Play the interleaving written in `order` from the start."""
        tokens = split_order(order)
        problem = order_problem(tokens, self.mode, self.client_count)
        if problem is not None:
            raise self._order_error(*problem)
        self.order = tokens
        self._start_race()
        return [{"type": "order_set", "order": list(tokens)}]

    def _order_error(self, code: str, what) -> ActionError:
        if code == "unknown_step":
            steps = [step for client in self._programs() for step in client]
            return ActionError(
                code,
                _("no step of this race is named %(step)r: its steps are %(steps)s"),
                "order",
                step=what,
                steps=", ".join(steps),
            )
        if code == "step_twice":
            return ActionError(
                code,
                _("%(step)s is named twice in the order: every step runs once"),
                "order",
                step=what,
            )
        if code == "missing_step":
            return ActionError(
                code,
                _("the order leaves out %(steps)s: every step must run once"),
                "order",
                steps=", ".join(what),
            )
        step, earlier = what
        return ActionError(
            code,
            _(
                "%(step)s comes before %(earlier)s: a client runs its own steps in "
                "their order"
            ),
            "order",
            step=step,
            earlier=earlier,
        )

    def _programs(self) -> list[list[str]]:
        steps = STEP_COUNTS[self.mode]
        return [
            [f"{name}{n}" for n in range(1, steps + 1)]
            for name in CLIENT_NAMES[: self.client_count]
        ]

    def do_shuffle(self) -> list[dict]:
        """The scheduler picks an interleaving at random; play it from the start."""
        rng = make_rng(self.seed, f"rate-limit-race.shuffle:{self.shuffles}")
        self.order = shuffled(self.mode, self.client_count, rng)
        self.shuffles += 1
        self._start_race()
        return [{"type": "shuffled", "order": list(self.order), "draw": self.shuffles}]

    def do_every_ordering(self) -> list[dict]:
        """Play every interleaving of this case from its start; count the overshoots."""
        count = ordering_count(self.mode, self.client_count)
        if count > MAX_ORDERINGS:
            raise ActionError(
                "too_many_orderings",
                _(
                    "there are %(count)s orderings of %(clients)s clients of "
                    "%(steps)s steps, and this lab plays at most %(maximum)s: take "
                    "fewer clients, or a way to count with fewer steps"
                ),
                clients=self.client_count,
                steps=STEP_COUNTS[self.mode],
                count=f"{count:,}",
                maximum=f"{MAX_ORDERINGS:,}",
            )
        result = every_ordering(
            self.mode,
            self.client_count,
            starting_key(self.starting_admitted),
            self.starting_admitted,
        )
        self.enumeration = {
            "mode": self.mode,
            "clients": self.client_count,
            "starting_admitted": self.starting_admitted,
            "limit": LIMIT,
            **result,
        }
        return [{"type": "orderings", **self.enumeration}]

    # ----- faults and time ------------------------------------------------------------
    def do_crash_client(self, client: str) -> list[dict]:
        """`client` dies after the last step it ran; its other steps never run."""
        name = client.strip().upper()
        if name not in CLIENT_NAMES[: self.client_count]:
            raise ActionError(
                "no_such_client",
                _("there is no client %(client)r: the clients are %(clients)s"),
                "client",
                client=client,
                clients=", ".join(CLIENT_NAMES[: self.client_count]),
            )
        if any(crash["client"] == name for crash in self.crashed):
            raise ActionError(
                "already_crashed",
                _("client %(client)s has crashed already"),
                "client",
                client=name,
            )
        pending = [step for step in self.plan[self.position :] if step[0] == name]
        if not pending:
            raise ActionError(
                "client_finished",
                _("client %(client)s has run all its steps: there is nothing to stop"),
                "client",
                client=name,
            )
        done = [step for step in self.plan[: self.position] if step[0] == name]
        after = done[-1] if done else None
        self.plan = self.plan[: self.position] + [
            step for step in self.plan[self.position :] if step[0] != name
        ]
        self.crashed.append({"client": name, "after": after, "dropped": pending})
        crash = {"client": name, "after": after, "dropped": list(pending)}
        events = [{"type": "client_crashed", **crash, **self._key_now()}]
        if self.position == len(self.plan):
            events.append(self._race_done())
        return events

    def _key_now(self) -> dict:
        value = self.key[0]
        return {"value": value, "ttl": None if value is None else self._ttl()}

    def do_pass_time(self, seconds: int) -> list[dict]:
        """Move the clock on; a key whose expiry comes is deleted."""
        self.clock += seconds
        value, expires_at = self.key
        expired = value is not None and expires_at is not None
        expired = expired and expires_at <= self.clock
        if expired:
            self.key = ABSENT
            self.expired_at = expires_at
        return [
            {
                "type": "time_passed",
                "seconds": seconds,
                "clock_s": self.clock,
                "expired": expired,
                "expired_at": expires_at if expired else None,
                **self._key_now(),
                "locked_out": self._locked_out(),
            }
        ]

    def do_new_request(self, count: int) -> list[dict]:
        """User42's next `count` requests, each run whole, one after another."""
        admitted = refused = 0
        for _n in range(count):
            local, sent = START, []
            for number in range(1, STEP_COUNTS[self.mode] + 1):
                ran = run_step(self.mode, number, self.key, local, self.clock)
                self.key, local = ran.key, ran.local
                if ran.command is not None:
                    sent.append({"command": ran.command, "reply": ran.reply})
            if local.admitted:
                admitted += 1
            else:
                refused += 1
            self.later.append(
                {
                    "at_s": self.clock,
                    "sent": sent,
                    "count": local.seen,
                    "admitted": bool(local.admitted),
                    **self._key_after(),
                }
            )
        del self.later[:-LATER_SHOWN]
        self.later_counts["admitted"] += admitted
        self.later_counts["refused"] += refused
        return [
            {
                "type": "requests",
                "count": count,
                "admitted": admitted,
                "refused": refused,
                "last": self.later[-1],
                **self._key_now(),
                "locked_out": self._locked_out(),
            }
        ]

    # ----- what the renderer and the tests read ---------------------------------------
    def _admitted(self) -> int:
        """Requests admitted this minute: those before the race and the race's."""
        return self.starting_admitted + sum(
            local.admitted is True for local in self.local
        )

    def _locked_out(self) -> bool:
        """The counter is at the limit and will never expire: every request refused."""
        value, expires_at = self.key
        return value is not None and expires_at is None and value >= LIMIT

    def _client(self, index: int) -> dict:
        name = CLIENT_NAMES[index]
        local = self.local[index]
        crash = next((c for c in self.crashed if c["client"] == name), None)
        steps = []
        for n in range(1, STEP_COUNTS[self.mode] + 1):
            step_id = f"{name}{n}"
            record = self.ran.get(step_id)
            dropped = crash is not None and step_id in crash["dropped"]
            step = {
                "id": step_id,
                "kind": step_kind(self.mode, n),
                "condition": STEP_CONDITIONS.get((self.mode, n)),
                "decides": n == DECIDES_AT[self.mode],
                "done": record is not None,
                "dropped": dropped,
            }
            if record is None:
                step |= {
                    "command": None if dropped else planned(self.mode, n, local),
                    "reply": None,
                    "skipped": False,
                    "seq": None,
                    "value_after": None,
                    "ttl_after": None,
                }
            else:
                step |= record
            steps.append(step)
        if local.admitted is not None:
            outcome = "admitted" if local.admitted else "refused"
        else:
            outcome = "crashed" if crash is not None else "pending"
        return {
            "name": name,
            "outcome": outcome,
            "crashed": crash is not None,
            "seen": local.seen,
            "steps": steps,
        }

    def snapshot(self) -> dict:
        """The counter, the clients and their steps, the order, the clock, the
        last enumeration and the requests after the race."""
        value, expires_at = self.key
        admitted = self._admitted()
        finished = [
            name
            for name in CLIENT_NAMES[: self.client_count]
            if name not in [step[0] for step in self.plan[self.position :]]
        ]
        enumeration = self.enumeration
        if enumeration is not None:
            case = (self.mode, self.client_count, self.starting_admitted)
            current = (
                enumeration["mode"],
                enumeration["clients"],
                enumeration["starting_admitted"],
            )
            enumeration = {**enumeration, "this_case": current == case}
        return {
            "seed": self.seed,
            "limit": LIMIT,
            "window_s": WINDOW_S,
            "mode": self.mode,
            "client_count": self.client_count,
            "starting_admitted": self.starting_admitted,
            "key": {
                "name": KEY,
                "exists": value is not None,
                "value": value,
                "ttl": None if value is None else self._ttl(),
                "expires_at_s": expires_at if value is not None else None,
                "last_expired_at_s": self.expired_at,
            },
            "clock_s": self.clock,
            "clients": [self._client(i) for i in range(self.client_count)],
            "order": list(self.plan),
            "order_text": " ".join(self.order),
            "position": self.position,
            "next": self.plan[self.position]
            if self.position < len(self.plan)
            else None,
            "finished": self.position == len(self.plan),
            "admitted": admitted,
            "overshoot": max(0, admitted - LIMIT),
            "refused": sum(local.admitted is False for local in self.local),
            "crashed": [
                {**crash, "dropped": list(crash["dropped"])} for crash in self.crashed
            ],
            "crashable": [
                name
                for name in CLIENT_NAMES[: self.client_count]
                if name not in finished
                and all(crash["client"] != name for crash in self.crashed)
            ],
            "orderings_possible": ordering_count(self.mode, self.client_count),
            "max_orderings": MAX_ORDERINGS,
            "enumeration": enumeration,
            "later": {**self.later_counts, "last": [dict(r) for r in self.later]},
            "locked_out": self._locked_out(),
            "shuffles": self.shuffles,
        }

    def metrics(self) -> dict:
        """The numbers the lab shows."""
        admitted = self._admitted()
        enumeration = self.enumeration or {}
        value = self.key[0]
        return {
            "admitted": admitted,
            "limit": LIMIT,
            "overshoot": max(0, admitted - LIMIT),
            "refused": sum(local.admitted is False for local in self.local),
            "counter": value,
            "ttl": None if value is None else self._ttl(),
            "steps_run": self.position,
            "steps_left": len(self.plan) - self.position,
            "orderings": enumeration.get("orderings"),
            "overshooting_orderings": enumeration.get("overshooting"),
            "worst_admitted": enumeration.get("worst_admitted"),
            "later_admitted": self.later_counts["admitted"],
            "later_refused": self.later_counts["refused"],
            "locked_out": self._locked_out(),
        }
