# <> is !=
print 1 <> 2, 1 <> 1
if 3 <> 4:
    print 'different'
print [a for a in range(4) if a <> 2]
