# tabs mixed with spaces: a tab moves to the next multiple of 8 columns
total = 0
for i in range(3):
        total += i
	total += 10
if total > 0:
    	print 'total', total
	print 'same block'
def f():
	if 1:
	    return 'nested'
	return 'no'
print f()
