# except E, name
try:
    1 / 0
except ZeroDivisionError, e:
    print 'caught:', e
try:
    [][1]
except (KeyError, IndexError), err:
    print type(err).__name__
try:
    {}['k']
except KeyError as e2:
    print 'as-form', e2
