"""The sandbox encoder's readers of callables and iterators (a part of `code_harness.HARNESS`,
spliced into its `_program` beside `code_harness_values.ENCODER`).

Red team round 20: reading a returned value must run none of the program's code that Python would
not run. `getattr(v, "__module__")` ran a callable's class `__getattribute__`, `hasattr(v,
"__next__")` its `__getattr__`, a defaultdict's own factory was called to learn its value: each
could flip a flag a later call reads. So a callable is read by its type's own descriptors
(`function.__module__`, `type.__name__`), an iterator is told by its class's dicts along the MRO,
and a program's factory is never called (a missing key out there is unverifiable).

A function stands for one object: it goes back with its id, and the harness keeps every function
it encoded alive, so no later object reuses the id and two stand-ins are equal just when they
stand for one function of the sandbox (`route('a') == route('b')` where both return `on_a`)."""

CALLABLES = r"""
    _fn_module = _function.__dict__["__module__"].__get__  # the function's own slot, no lookup
    _fn_name = _function.__dict__["__name__"].__get__
    _alive = []  # every function encoded, so its id stays its own for the run
    def enc_function(v):
        t = _type(v)
        if t is _function:
            module, name = _fn_module(v), _fn_name(v)
        elif _issubclass(t, type):  # a class of the program's (its metaclass may be too)
            module, name = _module_of(v), _name_of(v)
        elif _flags_of(t) & _heap:  # a callable instance: its class says whose it is
            module, name = _module_of(t), _name_of(t)
        else:  # a bound method, a partial: reading it would reach the program's attributes
            raise _Unsupported("a callable the trusted side cannot name")
        if _type(module) is not _str or module != "solution":  # a str: its == is str's own
            raise _Unsupported("a function not of the program")
        _alive.append(v)
        return {"fn": [name[:100] if _type(name) is _str else "?", _id(v)]}
    def has_next(t):
        # `hasattr(v, "__next__")` would run the program's __getattr__: the class dicts instead.
        for c in _mro(t):
            if "__next__" in _class_dict(c):
                return True
        return False
    _numerator = _fraction.__dict__["_numerator"].__get__  # slots: a patched property never runs
    _denominator = _fraction.__dict__["_denominator"].__get__
"""
