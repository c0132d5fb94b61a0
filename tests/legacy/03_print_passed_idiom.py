# the idiom of Solfec-1.0's test decks: the pending space and four backspaces
import sys
print 'Testing contact ...',
sys.stdout.flush()
ok = 2 + 2 == 4
if ok: print '\b\b\b\bPASSED'
else: print '\b\b\b\bFAILED'
print 'Testing friction ...',
sys.stdout.flush()
if not ok: print '\b\b\b\bPASSED'
else: print '\b\b\b\bFAILED'
