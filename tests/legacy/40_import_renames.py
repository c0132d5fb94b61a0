# Python 2 module names
import cPickle
print cPickle.loads(cPickle.dumps([1, 2]))
import StringIO
s = StringIO.StringIO()
s.write('hi')
print s.getvalue()
from cStringIO import StringIO as SIO
print SIO('abc').read()
from ConfigParser import ConfigParser
c = ConfigParser()
c.add_section('s')
c.set('s', 'k', 'v')
print c.get('s', 'k')
import Queue
q = Queue.Queue()
q.put(3)
print q.get()
import sets, commands
print len(sets.Set([1, 2, 2])), commands.getoutput('echo shell')
import types
print type('') is types.StringType, types.IntType is int
import itertools
print list(itertools.izip([1], [2]))
