# print (a, b) prints a tuple in Python 2
print ('a', 1)
print (1)
print ()
print('x')
print ('p', 'q'),
print 'r'
