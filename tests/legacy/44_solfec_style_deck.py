# a Solfec-1.0 style test deck (without solver calls): integer division picks counts
import sys
nx = 7
ny = nx / 2
print 'HEX subdivision:', nx, ny, (nx + 1) * (ny + 1) / 2
step = 1E-3
duration = 10 * step
nsteps = int(round(duration / step))
print 'steps:', nsteps
def check(label, ok):
    print 'Testing %s ...' % label,
    sys.stdout.flush()
    if ok: print '\b\b\b\bPASSED'
    else: print '\b\b\b\bFAILED'
check('division', ny == 3)
check('steps', nsteps == 10)
lst = [1, 2, 3, 4]
print 'middle:', lst[len(lst) / 2]
print '=' * (9 / 2)
