# functions and constants of Python 2's string module
import string
print string.letters[:5], string.lowercase[:3], string.uppercase[-2:]
print string.upper('abc'), string.lower('XY'), string.strip('  s  ')
print string.join(['a', 'b', 'c'], '-'), string.join(['x', 'y'])
print string.split('a b  c'), string.split('a,b', ',')
print string.atoi('42') + 1, string.atof('2.5') * 2
print string.replace('aaa', 'a', 'b', 2), string.digits
from string import letters, join
print len(letters), join(['p', 'q'], '+')
