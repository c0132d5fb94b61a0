# exec inside functions: "in globals()" and the caller's own namespaces
def f():
    exec "q = 1 / 2 + 1" in globals()
f()
print q
def g():
    exec "print 'exec sees', __name__"
g()
