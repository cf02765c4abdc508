"""The program that runs inside the sandbox, and the job it reads.

Two processes, so that the report cannot be forged or pre-empted by the program (red team round
5 wrote a made-up report to every fd and exited). The reporter reads the job, forks, and never
runs a line of the program: it is made non-dumpable (no /proc/PID/fd or /mem of it opens for the
program), reads the run's nonce from the job only after the fork (the program's process never
held it), and alone holds stdout, where it writes one line, `RLVR-VALUES <nonce> <json>`, after
the last call. The program's process has stdin on /dev/null, stdout on stderr, every other fd
closed but two pipes: requests in, answers out. Each request carries a token the reporter draws
after the fork; an answer must echo it in one well-formed frame, so a frame the program writes
ahead (without the token) or besides (one too many) makes the reporter report an error. What
the program can still do is claim values for the calls it was asked, as returning them would.
Which input a call returned (`f(xs) is xs`) is decided with `is` against the harness's own tuple of
the inputs it passed (a fast local), and only `answer` writes that claim (round 11).
Which earlier result a call returned again (`f() is g()`) is decided the same way, against the
results the job's `keep` names, kept alive in a second tuple (round 15).

The job: the header as JSON, then the nonce, then per call `repr((call, [[name, literal]]))`
holding the shared inputs that call is the first to name, each read just before it runs."""

from __future__ import annotations

import json
from typing import Any

from stages.verifiers.code_harness_callables import CALLABLES
from stages.verifiers.code_harness_values import ENCODER

REPORT = "RLVR-VALUES "
REPORTER_MB = 32  # the reporter's own resident memory (a second interpreter), not the program's

HARNESS = (
    r"""
import json, os, sys
def _frame_reader(read):
    def frame(fd, limit=1 << 26):
        size = b""
        while not size.endswith(b"\n"):
            byte = read(fd, 1)
            if not byte or len(size) > 12:
                raise EOFError("the stream ended early")
            size += byte
        left, chunks = int(size), []
        if left > limit:
            raise EOFError("a frame too large")
        while left > 0:
            chunk = read(fd, min(left, 65536))
            if not chunk:
                raise EOFError("the stream ended early")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks).decode("utf-8")
    return frame
def _send(fd, text):
    data = text.encode("utf-8", "backslashreplace")
    data = b"%d\n" % len(data) + data
    while data:
        data = data[os.write(fd, data):]
def _reporter(job, child, requests, answers, frame):
    try:  # non-dumpable: the program's process cannot open /proc/<this pid>/fd or /mem
        import ctypes
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
    except Exception:
        pass
    nonce = frame(0)  # read after the fork: the program's process never held it
    def report(obj):
        try:
            os.kill(child, 9)
        except OSError:
            pass
        os.write(1, ("RLVR-VALUES " + nonce + " " + json.dumps(obj) + "\n").encode())
    def ask(text):
        token = os.urandom(16).hex()
        try:
            _send(requests, token + "\n" + text)
            answer = json.loads(frame(answers))
        except (EOFError, OSError) as e:
            raise EOFError("exited") from e
        except ValueError as e:
            raise ValueError("an answer that is not one JSON frame") from e
        if not isinstance(answer, dict) or answer.get("t") != token or set(answer) != {"t", "a"}:
            raise ValueError("an answer the harness did not write")
        return answer["a"]
    try:
        loaded = ask("")
        if loaded != "ok":
            report({"error": str(loaded)[:400]})
            return
        values = [ask(frame(0)) for _ in range(job["calls"])]
        os.set_blocking(answers, False)
        try:
            extra = os.read(answers, 1)
        except BlockingIOError:
            extra = b""
        if extra:
            raise ValueError("more answers than calls")
    except (EOFError, ValueError) as e:
        report({"broken": str(e)})
        return
    report({"values": values})
def _program(job, requests, answers, frame):
    # Runs the program and answers each request; reads nothing the reporter did not send.
    _int, _eval, _compile = int, eval, compile
    sys.stdin = open(os.devnull)
    _type, _repr, _str, _hex, _hasattr = type, repr, str, hex, hasattr
    _callable, _getattr, _isinstance = callable, getattr, isinstance
    _json = __import__("_json")  # the C encoder: json.dumps reads module globals the program may patch
    _json_encoder = _json.make_encoder(None, None, _json.encode_basestring_ascii, None, ": ", ", ",
                                       False, False, True)  # fmt: skip
    _issubclass, _id, _list, _tuple, _set, _frozenset = issubclass, id, list, tuple, set, frozenset
    _dict, _float, _complex, _bytes, _bytearray = dict, float, complex, bytes, bytearray
    _fraction = __import__("fractions").Fraction  # before the program: its own, never a fake
    _match = _type(__import__("re").match("", ""))
    _collections = __import__("collections")
    _ordered, _counter = _collections.OrderedDict, _collections.Counter
    _defaultdict = _collections.defaultdict
    _default_factory = _defaultdict.__dict__["default_factory"].__get__  # not a subclass's
    _factories = {_id(b): b.__name__ for b in (int, float, complex, str, bytes, bool, list, tuple,
                                               dict, set, frozenset)}  # fmt: skip
    _dates = __import__("datetime")
    _array = __import__("array").array  # a heap type, yet immutable: told by identity alone
    _heap = 1 << 9  # Py_TPFLAGS_HEAPTYPE: every class a program defines; deque's, numpy's are not
    _flags_of = type.__dict__["__flags__"].__get__
    _module_of, _name_of = type.__dict__["__module__"].__get__, type.__dict__["__name__"].__get__
"""
    + ENCODER
    + CALLABLES
    + r"""
    def request():
        token, _, text = frame(requests).partition("\n")
        return token, text
    def settle(held, last, draws_at, objects_kept):
        # At a group's last call: a late value encoded now, any other re-encoded and compared
        # with its snapshot; two iterators drawn in one group, or a changed value, unverifiable.
        # An iterator drawn while the tests keep a program object: it may be the object's, and
        # drawing ahead of Python could change what the object answers later (code_objects).
        fixes = []
        for index, result, snapshot in held:
            try:
                value = enc(result, 0, takes.get(index, 10000))
                if snapshot is not None and "".join(_json_encoder(value, 0)) != snapshot:
                    value = {"u": "a value a later call of its assert changed"}
            except _Unsupported as e:
                value = {"u": _str(e)[:100]}
            except BaseException as e:  # raised reading it at the end: never its snapshot
                value = {"u" if snapshot else "e": _type(e).__name__ + ": " + _str(e)[:200]}
            if snapshot is None or value.__class__ is dict and "u" in value:
                fixes.append([index, value])
        if drawn[0] - draws_at > 1 or (objects_kept and drawn[0] != draws_at):
            fixes = [[i, {"u": "two iterators drawn in one assert"}] for i, _r, _s in held]
            fixes.append([last, {"u": "two iterators drawn in one assert"}])
        return fixes
    def frozen(x, depth):
        # An encoded value no later call can change: a scalar, or a tuple or frozenset of them.
        t = _type(x)
        if x is None or t is bool or t is str or t is int or t is float:
            return True
        if t is not _dict or depth > 100:
            return False
        for tag in x:
            if tag in ("i", "f", "c", "b", "fr", "dec"):
                return True
            if tag == "t" or tag == "fs":
                for y in x[tag]:
                    if not frozen(y, depth + 1):
                        return False
                return True
            return False
        return False
    def frozen_items(value):
        # A list, tuple, set or dict whose items (keys and values) are all immutable: what
        # `sorted` or `min` kept of them cannot change after the snapshot (code_reads).
        if _type(value) is not _dict:
            return False
        for tag in value:
            if tag == "l" or tag == "t" or tag == "s" or tag == "fs":
                return frozen({"t": value[tag]}, 0)
            if tag == "d":
                for pair in value[tag]:
                    if not frozen({"t": pair}, 0):
                        return False
                return True
            return False
        return False
    def answer(token, value, ref=None, fixes=None, _write=os.write, _fd=answers,
               _json=_json_encoder, _join="".join, _len=len):  # fmt: skip
        # Defaults only, no cells (a cell's contents the program could rebind; __defaults__ it
        # cannot, see guard): os.write, json's C encoder and this fd as they were before the
        # program. Only this function wraps a value as the input it was (`ref`): a top-level
        # "ref" in what enc made (enc's cells the program can rebind) is a forgery.
        body = _join(_json(value, 0))
        if body.startswith('{"ref"') or body.startswith('{"fix"'):
            body = '{"e": "the program forged which input a call returned"}'
        if ref is not None:
            body = '{"ref": [' + _join(_json(ref, 0)) + ", " + body + "]}"
        if fixes is not None:  # the group's earlier values as settled at its end (code_groups)
            body = '{"fix": [' + _join(_json(fixes, 0)) + ", " + body + "]}"
        text = '{"t": ' + _join(_json(token, 0)) + ', "a": ' + body + "}"
        data = text.encode("utf-8", "backslashreplace")
        data = b"%d\n" % _len(data) + data
        while data:
            data = data[_write(_fd, data):]
    import builtins, types
    set_type, frozenset_type = set, frozenset  # fast locals: a shared dict the program could edit
    unplaced = frozenset(job["unplaced"])  # held past where Python frees it? (code_groups)
    keep = frozenset(job["keep"])  # read before the program runs: calls whose results `is` names
    takes = {index: n for index, n in job["take"]}  # call -> items to draw of its iterator
    ends = {g[1]: g for g in job["groups"]}  # an assert's last call -> its group (code_groups)
    late = frozenset(i for g in job["groups"] for i in g[2])
    early = frozenset(i for g in job["groups"] for i in g[3])
    read_now = frozenset(i for g in job["groups"] for i in g[4])  # consumed at once (code_reads)
    read_items = frozenset(i for g in job["groups"] for i in g[5])
    grouped = frozenset(i for g in job["groups"] for i in range(g[0], g[1]))
    raising = frozenset(job["raising"])  # a try statement's calls (code_raises)
    exception_classes = ()  # the builtin exception classes, before the program can rebind any
    for name, kind in vars(builtins).items():
        if _isinstance(kind, type) and _issubclass(kind, BaseException):
            exception_classes = exception_classes + ((name, kind),)
    # `s = Stack()` (code_objects): (call, name) pairs in a tuple, which no program can edit
    object_names = tuple((index, name) for index, name in job["objects"])
    originals = dict(vars(builtins))  # before the program can rebind any
    module = types.ModuleType("solution")  # a real module: dataclasses and pickle look it up
    sys.modules["solution"] = module
    ns = module.__dict__
    harness_globals, rebinds = globals(), ("__code__", "__defaults__", "__kwdefaults__")
    def guard(event, args, _globals=harness_globals, _rebinds=rebinds, _get=getattr,
              _error=RuntimeError):  # fmt: skip
        # A trace or profile function is the one pure-Python way to write back into a running
        # frame's fast locals (where the harness keeps the inputs it passed), and a function's
        # code or defaults the way to rewrite how it answers: neither is the program's to do.
        if event == "sys.settrace" or event == "sys.setprofile":
            raise _error("tracing is not available to the program")
        if event == "object.__setattr__" and args[1] in _rebinds:
            if _get(args[0], "__globals__", None) is _globals:
                raise _error("the harness's functions are not the program's to rewrite")
    sys.addaudithook(guard)
    token, _ = request()
    try:
        exec(compile(job["solution"], "solution.py", "exec"), ns)
    except BaseException as e:
        answer(token, _type(e).__name__ + ": " + _str(e)[:300])
        return
    def run_imports(before):
        # The tests' imports written before call `before` (code_tests.imports_in_place): in
        # Python an import binds its names only from where it stands (round 21).
        for at, line in job["imports"]:
            if at == before:
                try:  # a module missing here fails only the calls that use it
                    exec(line, ns)
                except BaseException:
                    pass
    run_imports(0)
    for name in job["own"]:  # a builtin name the tests call as the program's: never the builtin
        if name not in ns:
            def missing(*args, _name=name, **kwargs):
                raise NameError("the program does not define " + _name)
            ns[name] = missing
    for name in job["originals"]:
        ns["__rlvr_" + name + "__"] = originals[name]
    for alias in job["modules"]:
        ns[alias] = module
    answer(token, "ok")
    # Inputs the program receives as objects (and may change, as in Python) live here, never in
    # the program's globals: a call sees only those it is passed, by its own local names.
    # Frames are Python literals we wrote, read with the builtins as they were (never json or ast,
    # which the program may have patched to watch what comes in).
    # `shared` is a tuple of (name, object) pairs in a fast local (no nested function names it, so
    # no cell): a program that walks its frames or gc can read it but neither mutate it (a tuple)
    # nor rebind it (a fast local of a running frame, tracing blocked above), and it keeps every
    # input alive (no id reused). Identity and read-backs are decided from it with `is` alone.
    shared = ()
    # Results an identity check names first (`f() is g()`), kept alive (no id reused) in a tuple
    # of (index, object) in a fast local, as `shared` is; `keep` is a frozenset: neither mutable.
    kept = ()
    held, draws_at = (), 0  # the group's values settled at its end: (index, result, snapshot)
    # The program's objects the tests bind (`s = Stack()`), as (name, object) in a fast local as
    # `shared` is, apart from it: a call returning one is an earlier result (`kept`), no input.
    objects = ()
    for index in range(job["calls"]):
        result = None
        token, text = request()
        if index in grouped and (index == 0 or index - 1 not in grouped):
            held, draws_at = (), drawn[0]
        if index:
            run_imports(index)
        try:
            call, binds = _eval(_compile(text, "<frame>", "eval"), {"__builtins__": {}})
            for name, literal in binds:
                names = {"__builtins__": {}, "set": set_type, "frozenset": frozenset_type}
                made = _eval(_compile(literal, "<input>", "eval"), names)
                shared = shared + ((name, made),)
            code = _compile(call, "<call>", "eval")
            passed = {}  # a loop, not a comprehension (whose cells would hold `code`)
            for name, given in shared + objects:
                if name in code.co_names:
                    passed[name] = given
            result = _eval(code, ns, passed)
            for at, name in object_names:  # kept for the calls that name it; never encoded
                if at == index:
                    objects, result = objects + ((name, result),), None
            returned = None  # decided here, before enc runs any of the program's code
            for name, given in shared:  # the very object the tests passed in (`f(xs) is xs`)
                if result is given:
                    returned = name
                    break
            for earlier, given in kept:  # the very object an earlier call gave (`f() is g()`)
                if returned is None and result is given:
                    returned = earlier
            if index in keep:
                kept = kept + ((index, result),)
            if index in late:  # read as Python first reads it: after the group's last call
                held, value = held + ((index, result, None),), {"u": "unsettled"}
            else:
                before = drawn[0]
                value = enc(result, 0, takes.get(index, 10000))
                if index in grouped and index not in early:
                    if drawn[0] != before:
                        value = {"u": "an iterator drawn before a later call of its assert"}
                    elif index in read_now or (index in read_items and frozen_items(value)):
                        pass  # its consumer read it at once: the snapshot is what Python read
                    else:
                        held = held + ((index, result, "".join(_json_encoder(value, 0))),)
                        if index in unplaced:  # held to the assert's end, maybe past Python's
                            value = {"u": "a value whose lifetime the program sees"}
                if objects and drawn[0] != before:  # see settle: maybe the object's iterator
                    value = {"u": "an iterator drawn while the tests keep a program object"}
        except _Unsupported as e:
            value, returned = {"u": _str(e)[:100]}, None
        except BaseException as e:
            if index in raising:  # every builtin class it is, by its type's MRO as `except` reads it
                value, returned = {"raised": []}, None
                for name, kind in exception_classes:
                    if _issubclass(_type(e), kind):
                        value["raised"].append(name)
            else:
                value, returned = {"e": _type(e).__name__ + ": " + _str(e)[:200]}, None
        fixes = settle(held, index, draws_at, objects != ()) if index in ends else None
        # Python frees a value once the assert has read it, and everything an assert read once
        # it is over (round 21: a __del__, a generator's finally, a weak reference see it): the
        # harness holds a result no longer than that. `held` and `kept` hold what an assert
        # reads after a later call of its own; the functions encoded stay distinct only while
        # their values are read (a held value keeps its own alive).
        result = given = None
        _alive.clear()
        if index not in grouped:  # the assert's last call: it is over
            held, kept = (), ()
        answer(token, value, returned, fixes)
def _main():
    frame = _frame_reader(os.read)
    job = json.loads(frame(0))
    requests_in, requests_out = os.pipe()
    answers_in, answers_out = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    child = os.fork()
    if child:
        os.close(requests_in)
        os.close(answers_out)
        _reporter(job, child, requests_out, answers_in, frame)
        return
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # the job (and the nonce in it) is the reporter's alone
    os.dup2(2, 1)  # the report channel is the reporter's alone
    keep = sorted((requests_in, answers_out))
    os.closerange(3, keep[0])
    os.closerange(keep[0] + 1, keep[1])
    os.closerange(keep[1] + 1, 1 << 16)
    try:
        _program(job, requests_in, answers_out, frame)
    finally:
        os._exit(0)
_main()
"""
)


def _frame(text: str) -> bytes:
    data = text.encode("utf-8", "backslashreplace")
    return b"%d\n" % len(data) + data


def job_frames(
    header: dict[str, Any], nonce: str, calls: list[str], bindings: list[list[str]]
) -> bytes:
    """The sandbox's stdin: the header as JSON, the nonce, then per call
    `repr((call, [[name, literal]]))` holding the shared inputs that call is the first to name
    (a later read of one is a call too)."""
    pending = dict(bindings)
    frames = [_frame(json.dumps(header)), _frame(nonce)]
    for call in calls:
        names = compile(call, "<call>", "eval").co_names
        binds = [[n, pending.pop(n)] for n in names if n in pending]
        frames.append(_frame(repr((call, binds))))
    return b"".join(frames)
