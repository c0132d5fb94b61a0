# Python 2 mapping methods on os.environ (a mapping that is not a dict), e.message
import os
os.environ['SOLFEC_PY2_TEST'] = 'yes'
print os.environ.has_key('SOLFEC_PY2_TEST'), type(os.environ.keys()) == list
print [v for k, v in os.environ.iteritems() if k == 'SOLFEC_PY2_TEST']
del os.environ['SOLFEC_PY2_TEST']
try:
    raise ValueError('msg here')
except ValueError, e:
    print e.message
