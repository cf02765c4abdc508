"""The console's guard on a real server: Host and Origin checked, the token's cookie, the token
on another host, and the strict CSP on every response (refusals and static files included)."""

from __future__ import annotations

import re

import pytest

from orchestrator.console.security import CSP, TOKEN_COOKIE
from store.log import EventLog
from tests.cli_runner import rlvr
from tests.tampering import synthetic_run
from tests.unit.console.serve import serving

REQUIRED_CSP = (
    "default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'none'",
    "frame-ancestors 'none'",
)  # fmt: skip


@pytest.fixture
def small_log(tmp_path, run_id):
    log = EventLog(tmp_path / "events.db")
    synthetic_run(log, run_id, steps=5)
    yield log
    log.close()


def test_every_response_carries_the_strict_csp_and_nosniff(small_log, run_id):
    with serving(small_log) as served, served.client() as client:
        port = served.binding.port
        responses = [
            client.get("/"),
            client.get("/api/runs"),
            client.get(f"/runs/{run_id}/events"),
            client.get(f"/api/runs/{run_id}/events"),
            client.get("/static/console.js"),
            client.get("/no-such-page"),
            client.get("/", headers={"host": f"evil.example:{port}"}),
            client.post("/api/runs"),
        ]
    assert [r.status_code for r in responses] == [200, 200, 200, 200, 200, 404, 421, 403]
    for response in responses:
        policy = response.headers["content-security-policy"]
        assert policy == CSP
        assert all(part in policy for part in REQUIRED_CSP)
        assert "unsafe-inline" not in policy and "http" not in policy
        assert response.headers["x-content-type-options"] == "nosniff"


def test_pages_hold_no_inline_script_and_load_only_their_own_assets(small_log, run_id):
    with serving(small_log) as served, served.client() as client:
        for path in ("/", f"/runs/{run_id}/events", "/compare"):
            html = client.get(path).text
            scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
            assert scripts and all(
                body == "" and 'src="/static/' in attrs for attrs, body in scripts
            )
            assert not re.search(r"\son[a-z]+\s*=", html, re.I)  # no event-handler attributes
            links = [x for x in re.findall(r'(?:src|href)="([^"]*)"', html) if x != "data:,"]
            assert links and all(
                link.startswith("/") and not link.startswith("//") for link in links
            )


def test_a_request_naming_another_host_is_refused_dns_rebinding(small_log):
    with serving(small_log) as served, served.client() as client:
        port = served.binding.port
        assert client.get("/", headers={"host": f"localhost:{port}"}).status_code == 200
        for host in (f"evil.example:{port}", f"127.0.0.1:{port + 1}", "127.0.0.1", ""):
            refused = client.get("/api/runs", headers={"host": host})
            assert refused.status_code == 421, host
            assert "Host" in refused.text


def test_a_request_that_changes_something_needs_the_consoles_own_origin(small_log):
    with serving(small_log) as served, served.client() as client:
        assert client.post("/api/runs").status_code == 403
        evil = client.post("/api/runs", headers={"origin": "http://evil.example"})
        assert evil.status_code == 403
        own = client.post("/api/runs", headers={"origin": served.base})
        assert own.status_code == 405  # past the guard: this route only reads
        assert client.get("/api/runs").json()["actions"] is True  # the runs list links forms


def test_the_printed_url_sets_an_httponly_cookie_and_the_token_leaves_the_url(small_log):
    with serving(small_log) as served, served.client() as client:
        opened = client.get(f"/?token={served.token}")
        assert opened.status_code == 303 and opened.headers["location"] == "/"
        cookie = opened.headers["set-cookie"]
        assert cookie.startswith(f"{TOKEN_COOKIE}={served.token};")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        # The page gives the token to its action forms only to a browser that holds the cookie.
        with_cookie = client.get("/").text  # the client keeps the cookie, as a browser does
        assert f'name="rlvr-console-token" content="{served.token}"' in with_cookie
    with serving(small_log) as served, served.client() as stranger:
        assert "rlvr-console-token" not in stranger.get("/").text
        wrong = stranger.get("/?token=not-the-token")
        assert wrong.status_code == 200 and "set-cookie" not in wrong.headers


def test_on_another_host_every_request_needs_the_token(small_log):
    token = "a-long-secret-token-1234"
    with serving(small_log, host="192.0.2.10", token=token) as served, served.client() as client:
        host = {"host": f"192.0.2.10:{served.binding.port}"}
        assert client.get("/api/runs", headers=host).status_code == 401
        assert client.get("/", headers=host).status_code == 401
        assert (
            client.get("/api/runs", headers={**host, "x-console-token": token}).status_code == 200
        )
        with served.client(cookies={TOKEN_COOKIE: token}) as holder:
            assert holder.get("/api/runs", headers=host).status_code == 200
        assert (
            client.get("/api/runs", headers={**host, "x-console-token": "x" * 24}).status_code
            == 401
        )
        assert client.get(f"/?token={token}", headers=host).status_code == 303


def test_a_read_only_console_says_so_to_its_pages(small_log):
    with serving(small_log, read_only=True) as served, served.client() as client:
        listed = client.get("/api/runs").json()
        assert listed["read_only"] is True and listed["actions"] is False  # no branch links
        assert '<meta name="rlvr-read-only" content="true">' in client.get("/").text
        assert served.binding.token  # actions check app.state.read_only before the token


def test_console_refuses_another_host_without_a_token(capsys, tmp_path, small_log):
    result = rlvr(capsys, "console", "--store", str(tmp_path / "events.db"), "--host", "0.0.0.0")
    assert result.code == 2
    assert len(result.error_lines) == 1 and "--token" in result.err
    short = rlvr(capsys, "console", "--store", str(tmp_path / "events.db"), "--token", "abc")
    assert short.code == 2 and "at least 16 characters" in short.err


def test_a_step_or_seq_past_64_bits_in_a_path_is_a_404_not_a_server_error(small_log, run_id):
    """Red team round 5 (shared_17): `/step/10**22` reached the JSON encoder, which cannot write
    integers past 64 bits, and the server answered 500 with a traceback in its log."""
    huge = 10**22
    with serving(small_log) as served, served.client() as client:
        step = client.get(f"/api/runs/{run_id}/step/{huge}")
        why = client.get(f"/api/runs/{run_id}/why/{huge}")
        normal = client.get(f"/api/runs/{run_id}/step/3")
    assert (step.status_code, why.status_code, normal.status_code) == (404, 404, 200)
    assert "no step" in step.json()["error"] and "no seq" in why.json()["error"]


def test_a_step_the_run_never_logged_is_a_404_naming_its_last_step(small_log, run_id):
    """Red team round 24 (log 018): a step past the run's last answered 200 with no attempts,
    where `--at-step` refuses it; the view then said "no rollouts were logged" of a step that
    never ran."""
    with serving(small_log) as served, served.client() as client:
        past = client.get(f"/api/runs/{run_id}/step/99999")
    assert past.status_code == 404, past.text
    assert past.json()["error"].startswith(f"run {run_id} has no step 99999 (its last step is ")
