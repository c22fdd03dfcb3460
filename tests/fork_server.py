"""Another Python process for the cross-process checks, started once a test session.

It runs with a hash seed other than the tests' own and imports the simulators (and
sets Django up, with the tests' settings) once;
then, for each script it is sent, it forks a child that runs the script as
`python -c SCRIPT ARGV...` would (its own sys.argv, stdin, stdout and stderr), so each
script starts from a fresh process's state without a new interpreter's start-up.

Run by tests/conftest.py (`another_process`), never imported. One request a line on
stdin, one answer a line on the answers pipe, both JSON:
    {"id": 1, "script": "...", "argv": ["..."], "input": "..."}
    {"id": 1, "returncode": 0, "stdout": "...", "stderr": "..."}
"""

import io
import json
import os
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import simulators.engine  # noqa: E402, F401  (what every script imports, once)
import simulators.labs  # noqa: E402, F401

if os.environ.get("DJANGO_SETTINGS_MODULE"):  # as the tests have it
    import django

    django.setup()  # a script's own django.setup() then finds it done


def run_script(request: dict) -> dict:
    """In the child: run the script as `python -c` would, and say what it did."""
    sys.argv = ["-c", *request.get("argv", [])]
    sys.stdin = io.StringIO(request.get("input") or "")
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    returncode = 0
    try:
        exec(compile(request["script"], "<string>", "exec"), {"__name__": "__main__"})
    except SystemExit as stop:
        code = stop.code
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
        returncode = code or 0
    except BaseException:
        traceback.print_exc()
        returncode = 1
    return {
        "returncode": returncode,
        "stdout": sys.stdout.getvalue(),
        "stderr": sys.stderr.getvalue(),
    }


def answer(request: dict) -> dict:
    """Fork a child for the request; its answer, or how it died."""
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(reading)
        try:
            body = json.dumps(run_script(request)).encode()
            with os.fdopen(writing, "wb") as out:
                out.write(body)
        finally:
            os._exit(0)
    os.close(writing)
    with os.fdopen(reading, "rb") as given:
        body = given.read()
    _, status = os.waitpid(child, 0)
    if body:
        return json.loads(body)
    return {
        "returncode": -os.WTERMSIG(status) if os.WIFSIGNALED(status) else 1,
        "stdout": "",
        "stderr": "the child died without an answer",
    }


def main() -> None:
    # answers go to the test session through what was stdout; anything else that
    # writes to file descriptor 1 goes to stderr instead of into the answers
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        request = json.loads(line)
        reply = {"id": request["id"], **answer(request)}
        answers.write(json.dumps(reply) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
