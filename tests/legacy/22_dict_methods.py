# keys/values/items are lists; has_key; iter* methods
d = {'a': 1}
print d.keys(), d.values(), d.items()
print d.has_key('a'), d.has_key('b')
for k, v in d.iteritems():
    print k, v
ks = d.keys()
ks.append('z')
print ks, len(d)
e = {3: 'c', 1: 'a', 2: 'b'}
print sorted(e.keys()), sorted(e.itervalues())
print sum(e.iterkeys())
print [k for k in sorted(e)]
