# exec statement: caller's namespace, "in" namespaces, tuple form, Python 2 code inside
exec "x = 6 / 4"
print x
ns = {}
exec "y = 5 * 2" in ns
print ns['y']
exec "print 'inside exec',"
print 'after'
code = "z = 2\nprint z * 3"
exec code
g = {}
l = {}
exec "w = 1" in g, l
print 'w' in l, 'w' in g
exec ("v = 7 / 2", ns)
print ns['v']
