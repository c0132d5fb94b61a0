# Python 2 ends a pending trailing-comma line when the program ends
print 'no newline yet',
