# exec of an open file and execfile run in the caller's globals (or the given dict)
f = open('exec_snippet_tmp.py', 'w')
f.write("q = 9 / 2\n")
f.write("print 'snippet sees', q\n")
f.close()
exec open('exec_snippet_tmp.py')
print q
execfile('exec_snippet_tmp.py')
def run_in_function():
    env = {}
    execfile('exec_snippet_tmp.py', env)
    return env['q']
print run_in_function()
import os
os.remove('exec_snippet_tmp.py')
