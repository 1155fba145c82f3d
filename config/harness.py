#!/usr/bin/env python3
"""
config/harness.py: drive PETSc's own test harness for petsc-modsell (used by config/test.mk).

PETSc installs its harness (gmakegentest.py, testparse.py, petsc_harness.sh, report_tests.py,
query_tests.py) under $PETSC_DIR/share/petsc/examples/config (or $PETSC_DIR/config in a source
tree).  Like SLEPc, we run it as an external package: gmakegentest's generateExamples with
pkg_name=petscmodsell, pkg_dir=<repository>, srcdir=<repository>.  This file only adapts it:

  generate  write <testdir>/testfiles (make rules), datatest.pkl, the run scripts, manifest.json.
            The test sources are every .c/.cxx/.cu with a /*TEST ... TEST*/ block anywhere in the
            repository (tests/, examples/, src/**/tests/, bench/, ...; not in hidden directories,
            output/ directories or build directories).  PETSc's own tree walk only looks in
            directories named tests/ or tutorials/, and would build every source file there.
            'requires: skfem', 'gmsh', 'petsc4py' are met by what config/python-env's environment
            imports (BUILD/python.env); its interpreter reaches the scripts as PETSCMODSELL_PYTHON.
  select    pick the tests to run (search=/s=, query=/q= with queryval=/qv=, searchin=/i=, test-fail=1)
  report    PETSc's report_tests.py summary, then the closing line 'N passed, N failed[, N skipped]';
            exit status 1 when anything failed, did not build, or nothing ran.
"""
import argparse
import copy
import fnmatch
import glob
import json
import re
import os
import subprocess
import sys

PKG_NAME = 'petscmodsell'                     # prefix of the harness' per-package shell variables


def load_harness(configdir):
  sys.path.insert(0, configdir)
  import gmakegentest   # noqa: E402  (PETSc's harness, installed with PETSc)
  import testparse      # noqa: E402
  return gmakegentest, testparse


def has_test_block(path):
  try:
    with open(path, errors='replace') as f:
      return '/*TEST\n' in f.read()
  except OSError:
    return False


def find_test_sources(top, build):
  """{top-level directory: [(root, file)]} of the sources with a TEST block."""
  exts = ('.c', '.cxx', '.cu')
  skip = {os.path.realpath(build)} if build else set()
  found = {}
  for root, dirs, files in os.walk(top):
    dirs[:] = sorted(d for d in dirs
                     if not d.startswith('.') and d != 'output'
                     and not (root == top and d.startswith('build'))
                     and os.path.realpath(os.path.join(root, d)) not in skip
                     and not os.path.exists(os.path.join(root, d, 'petsc.env')))  # other build trees
    for f in sorted(files):
      if f.endswith(exts) and not f.startswith(('.', '#')) and has_test_block(os.path.join(root, f)):
        rel = os.path.relpath(root, top)
        if rel != '.':
          found.setdefault(rel.split(os.sep)[0], []).append((root, f))
  return found


def uses_gpu(testdict):
  """A test uses the GPU when it requires cuda (or hip, sycl, kokkos) or names a GPU type in its arguments."""
  text = []
  def walk(d):
    for k, v in d.items():
      if isinstance(v, dict):
        walk(v)
      elif k in ('requires', 'args', 'suffix') and isinstance(v, str):
        text.append(v)
  walk(testdict)
  return re.search(r'(?<![!\w])(cuda|hip|sycl|kokkos)', ' '.join(text)) is not None


# Python packages that tests can require ('requires: skfem', 'gmsh', 'petsc4py'): config/python-env provisions
# them and writes BUILD/python.env, PETSCMODSELL_HAVE_<NAME>=1|0 and '# <name>: <why not>' lines
PYTHON_REQUIREMENTS = ('skfem', 'gmsh', 'petsc4py')


def read_python_env(build):
  """(variables, {name: why not}) of BUILD/python.env; no file: nothing available."""
  env, why = {}, {}
  path = os.path.join(build, 'python.env') if build else ''
  if not path or not os.path.exists(path):
    for n in PYTHON_REQUIREMENTS:
      why[n] = 'no %s: config/python-env has not run (make check runs it)' % (path or 'python.env')
    return env, why
  with open(path) as f:
    for line in f:
      line = line.strip()
      if line.startswith('#'):
        k, sep, v = line[1:].strip().partition(': ')
        if sep and k in PYTHON_REQUIREMENTS:
          why.setdefault(k, v)
      elif '=' in line:
        k, v = line.split('=', 1)
        env[k] = v
  for n in PYTHON_REQUIREMENTS:
    if env.get('PETSCMODSELL_HAVE_' + n.upper()) != '1':
      why.setdefault(n, 'not available in the Python environment (see %s)' % path)
  return env, why


def make_generator_class(gmakegentest, testparse, lib, build):
  pyenv, pywhy = read_python_env(build)

  class ModSELLExamples(gmakegentest.generateExamples):
    """PETSc's test generator, walking our tree and exporting our library's location to the scripts."""

    def __init__(self, *args, **kwargs):
      super().__init__(*args, **kwargs)
      # make check VALGRIND=1: 'requires: !defined(PETSCTEST_VALGRIND)' leaves a test out, as in PETSc's own CI
      if os.environ.get('MS_VALGRIND') == '1':
        self.conf['PETSCTEST_VALGRIND'] = 1
      # 'requires: skfem' (gmsh, petsc4py): met when config/python-env's environment imports it
      for n in PYTHON_REQUIREMENTS:
        if pyenv.get('PETSCMODSELL_HAVE_' + n.upper()) == '1':
          self.conf['PETSCMODSELL_HAVE_' + n.upper()] = 1
      self.ms_errors = []    # [(source, message)]: TEST blocks the harness could not parse
      self.ms_skipped = {}   # label -> reason: tests whose 'requires:' this PETSc does not meet
      self.ms_labels = {}    # label -> make target of every generated (runnable) test
      self.ms_gpu = set()    # labels of the tests that use the GPU (config/test.mk runs GPU_JOBS of them at a time)

    def walktree(self, sources):
      dataDict = {}
      for pkg in sorted(sources):
        for root, f in sources[pkg]:
          data = {}
          try:
            self.genPetscTests(root, [], [f], data)
          except Exception as e:   # one broken TEST block must not hide all the other tests
            self.ms_errors.append((os.path.relpath(os.path.join(root, f), self.srcdir), str(e).strip()))
            continue
          dataDict.setdefault(root, {}).update(data.get(root, {}))
      return dataDict

    def genScriptsAndInfo(self, exfile, root, srcDict):
      # gmakegentest drops tests whose requirements are unmet without a trace; keep them, as skipped
      rpath = self.srcrelpath(root)
      for test in list(srcDict):
        if test in self.buildkeys or 'TODO' in srcDict[test]:
          continue
        probe = copy.deepcopy(srcDict[test])
        probe['SKIP'] = []
        if not self._isRun(probe):
          label = gmakegentest.nameSpace(testparse.getDefaultOutputFileRoot(test), rpath)
          # a missing Python package: say why it is missing
          reasons = []
          for r in probe['SKIP']:
            m = re.match(r'PETSC_HAVE_(\w+) or PETSCMODSELL_HAVE_\w+ requirement not met', r)
            n = m.group(1).lower() if m else None
            reasons.append('%s: %s' % (n, pywhy[n]) if n in pywhy else r)
          self.ms_skipped[label] = ', '.join(reasons)
      super().genScriptsAndInfo(exfile, root, srcDict)

    def addToTests(self, test, rpath, exfile, execname, testDict):
      super().addToTests(test, rpath, exfile, execname, testDict)
      label = gmakegentest.nameSpace(testparse.getDefaultOutputFileRoot(test), rpath)
      self.ms_labels[label] = gmakegentest.nameSpace(test, rpath)
      self.ms_skipped.pop(label, None)
      if uses_gpu(testDict):
        self.ms_gpu.add(label)

    def getSubstVars(self, testDict, rpath, testname):
      subst = super().getSubstVars(testDict, rpath, testname)
      # Every script knows where the plugin is (tests load it with -dll_append ${PETSCMODSELL_LIB});
      # the environment may override both, e.g. to test another build of the library.
      defaults = ['export PETSCMODSELL_LIB="${PETSCMODSELL_LIB:-%s}"' % lib,
                  'export PETSCMODSELL_BUILD="${PETSCMODSELL_BUILD:-%s}"' % build,
                  # the interpreter of config/python-env's environment (tests that run Python scripts)
                  'export PETSCMODSELL_PYTHON="${PETSCMODSELL_PYTHON:-%s}"' % pyenv.get('PETSCMODSELL_PYTHON', 'python3')]
      subst['env'] = '\n'.join(defaults + ([subst['env']] if subst['env'] else []))
      # A command that the test executable runs under (after mpiexec's options), e.g.
      # "compute-sanitizer --tool racecheck" or "nsys profile": make check WRAPPER='...'
      subst['mpiexec_tail'] = (subst['mpiexec_tail'] + ' ${PETSCMODSELL_WRAPPER}').strip()
      return subst

  return ModSELLExamples


def cmd_generate(a):
  gmakegentest, testparse = load_harness(a.config_dir)
  cls = make_generator_class(gmakegentest, testparse, a.lib, a.build)
  os.makedirs(a.testdir, exist_ok=True)
  # pkg_arch '' keeps the harness' file names (test__tap.log); pkg_dir/include/petscmodsellconf.h,
  # if the package ever has one, is read for 'requires:' (PETSCMODSELL_HAVE_...), as for SLEPc.
  sources = find_test_sources(a.srcdir, a.build)
  pkgs = sorted(sources)   # the harness' "packages": the top-level directories that hold tests
  gen = cls(petsc_dir=a.petsc_dir, petsc_arch=a.petsc_arch, pkg_dir=a.srcdir, pkg_arch='',
            pkg_name=PKG_NAME, pkg_pkgs=','.join(pkgs) if pkgs else None, testdir=a.testdir, srcdir=a.srcdir)
  dataDict = gen.walktree(sources)
  testfiles = os.path.join(a.testdir, 'testfiles')
  gen.write_gnumake(dataDict, testfiles)
  with open(testfiles, 'a') as f:
    f.write('\n# top-level directories with tests (config/test.mk)\nMS_TEST_PKGS := %s\n' % ' '.join(pkgs))
  gen.write_db(dataDict, a.testdir)
  manifest = {'tests': gen.ms_labels, 'skipped': gen.ms_skipped, 'errors': gen.ms_errors, 'gpu': sorted(gen.ms_gpu)}
  with open(os.path.join(a.testdir, 'manifest.json'), 'w') as f:
    json.dump(manifest, f, indent=1, sort_keys=True)
  for src, msg in gen.ms_errors:
    print('[check] error: cannot parse the TEST block of %s: %s' % (src, msg), file=sys.stderr)
  pyenv, pywhy = read_python_env(a.build)
  print('[check] Python environment (%s): %s' % (pyenv.get('PETSCMODSELL_PYTHON', 'none'), ', '.join(
        '%s %s' % (n, 'yes' if n not in pywhy else 'no (%s)' % pywhy[n]) for n in PYTHON_REQUIREMENTS)))
  print('[check] %d tests generated from the TEST blocks of %d sources under %s (%d not run here: unmet requires:)'
        % (len(gen.ms_labels), sum(len(v) for v in sources.values()), ', '.join(p + '/' for p in pkgs) or '-',
           len(gen.ms_skipped)))
  return 0


def name_patterns(pattern, srcdir):
  """search= accepts names (globs, '-' and '_' alike), source files and directories, comma or space separated."""
  pats = []
  for p in pattern.replace(',', ' ').split():
    if '/' in p or p.endswith(('.c', '.cxx', '.cu')):
      rel = os.path.relpath(os.path.abspath(p), srcdir) if os.path.exists(p) else p
      rel = rel.strip('/')
      if rel.endswith(('.c', '.cxx', '.cu')):
        d, f = os.path.split(rel)
        pats.append(d.replace('/', '_') + '-' + f.split('.')[0] + '_*')
        pats.append(d.replace('/', '_') + '-' + f.split('.')[0])
      else:
        pats.append(rel.replace('/', '_') + '*')
    else:
      pats.append(p)
  return pats


def matches(label, pats):
  alt = label.replace('-', '_')
  return any(fnmatch.fnmatchcase(label, p) or fnmatch.fnmatchcase(alt, p.replace('-', '_')) for p in pats)


def cmd_select(a):
  with open(os.path.join(a.testdir, 'manifest.json')) as f:
    manifest = json.load(f)
  labels = sorted(manifest['tests'])
  skipped = manifest['skipped']
  everything = sorted(set(labels) | set(skipped))
  chosen = everything
  how = 'all tests'
  if a.test_fail:
    fails = os.path.join(a.testdir, 'echofailures.sh')
    names = open(fails).read().split()[1:] if os.path.exists(fails) else []
    chosen = [n for n in everything if n in names]
    how = 'the tests that failed last time'
  elif a.search:
    pats = name_patterns(a.search, a.srcdir)
    chosen = [n for n in everything if matches(n, pats)]
    how = "search='%s'" % a.search
  elif a.query:
    gmakegentest, testparse = load_harness(a.config_dir)
    import pickle
    import query_tests   # PETSc's: inverse dictionary of the TEST fields
    with open(os.path.join(a.testdir, 'datatest.pkl'), 'rb') as f:
      dataDict = pickle.load(f)
    inv = query_tests.get_inverse_dictionary(dataDict, a.query, a.srcdir)
    found = set(query_tests.query(inv, a.query, a.queryval))
    chosen = [n for n in everything if n in found]
    how = "query='%s' queryval='%s'" % (a.query, a.queryval)
  if a.searchin and a.searchin.strip():
    si = a.searchin.strip()
    neg = si.startswith('!')
    chosen = [n for n in chosen if matches(n, [si.lstrip('!')]) != neg]
  errors = manifest['errors']
  if how != 'all tests':
    # a source whose TEST block does not parse fails the runs that would have included its tests
    pats = name_patterns(a.search, a.srcdir) if a.search else []
    def prefix(src):
      d, f = os.path.split(src)
      return d.replace('/', '_') + '-' + f.split('.')[0]
    errors = [e for e in errors if pats and (matches(prefix(e[0]), pats) or matches(prefix(e[0]) + '_1', pats))]
  sel = {'how': how,
         'targets': [manifest['tests'][n] for n in chosen if n in manifest['tests']],
         'labels': [n for n in chosen if n in manifest['tests']],
         'skipped': {n: skipped[n] for n in chosen if n in skipped and n not in manifest['tests']},
         'errors': errors}
  with open(os.path.join(a.testdir, 'selection.json'), 'w') as f:
    json.dump(sel, f, indent=1)
  with open(os.path.join(a.testdir, 'selected'), 'w') as f:
    f.write('\n'.join(sel['targets']) + '\n')
  gpu = set(manifest.get('gpu', []))
  with open(os.path.join(a.testdir, 'selected-gpu'), 'w') as f:
    f.write('\n'.join(manifest['tests'][n] for n in sel['labels'] if n in gpu) + '\n')
  print('[check] running %d of %d tests (%s)' % (len(sel['labels']), len(labels), how))
  return 0


def read_counts(path):
  c = {'total': 0, 'success': 0, 'failed': 0, 'skip': 0, 'todo': 0}
  with open(path) as f:
    for line in f:
      w = line.split()
      if len(w) == 2 and w[0] in c:
        c[w[0]] = int(w[1])
  return c


def cmd_report(a):
  testdir = a.testdir
  try:
    with open(os.path.join(testdir, 'selection.json')) as f:
      sel = json.load(f)
  except (OSError, ValueError):
    sel = {'labels': [], 'skipped': {}, 'errors': []}
  countsdir = os.path.join(testdir, 'counts')
  passed = failed = skipped = 0
  notbuilt = []
  for label in sel['labels']:
    cf = os.path.join(countsdir, label + '.counts')
    if not os.path.exists(cf):
      notbuilt.append(label)
      continue
    c = read_counts(cf)
    passed += c['success']
    failed += c['failed']
    skipped += c['skip'] + c['todo']
  fails = os.path.join(testdir, 'echofailures.sh')   # test-fail=1 reads it; report_tests.py rewrites it on failures
  if os.path.exists(fails):
    os.remove(fails)
  if os.path.isdir(countsdir) and glob.glob(os.path.join(countsdir, '*.counts')):
    cmd = [sys.executable, os.path.join(a.config_dir, 'report_tests.py'), '-m', 'make', '-d', countsdir, '-t', '5', '-s']
    if a.elapsed:
      cmd += ['-e', a.elapsed]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    # report_tests.py names PETSc's own makefile for reruns; ours is 'make check test-fail=1'
    out = out.replace('make -f gmakefile.test test test-fail=1', 'make check test-fail=1')
    print(out.rstrip())
  for label in sorted(sel['skipped']):
    print('# SKIP %s: %s' % (label, sel['skipped'][label]))
  skipped += len(sel['skipped'])
  for label in notbuilt:
    print('# FAILED %s: not run (its executable did not build, or its script did not finish)' % label)
  for src, msg in sel.get('errors', []):
    print('# FAILED %s: the harness cannot parse its TEST block: %s' % (src, msg.splitlines()[0] if msg else ''))
  failed += len(notbuilt) + len(sel.get('errors', []))
  if notbuilt:
    names = open(fails).read().split()[1:] if os.path.exists(fails) else []
    with open(fails, 'w') as f:
      f.write('echo ' + ' '.join(sorted(set(names + notbuilt))) + '\n')
  problems = []
  if a.gen_failed:
    problems.append('generating the tests failed')
  if a.make_rc and not notbuilt:
    problems.append('building or running the tests failed (make exit status %s)' % a.make_rc)
  if passed + failed == 0:
    problems.append('no test ran')
  if problems:
    print('# ' + '; '.join(problems))
    failed = max(failed, 1)
  line = '%d passed, %d failed' % (passed, failed)
  if skipped:
    line += ', %d skipped' % skipped
  print(line)
  return 1 if failed else 0


def main():
  p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument('command', choices=['generate', 'select', 'report'])
  p.add_argument('--config-dir', required=True, help="PETSc's harness directory (with gmakegentest.py)")
  p.add_argument('--testdir', required=True)
  p.add_argument('--srcdir', required=True, help='repository root')
  p.add_argument('--petsc-dir', default=os.environ.get('PETSC_DIR'))
  p.add_argument('--petsc-arch', default=os.environ.get('PETSC_ARCH', ''))
  p.add_argument('--lib', default='', help='path of libpetscmodsell')
  p.add_argument('--build', default='', help='build directory')
  p.add_argument('--search', default='')
  p.add_argument('--query', default='')
  p.add_argument('--queryval', default='')
  p.add_argument('--searchin', default='')
  p.add_argument('--test-fail', default='')
  p.add_argument('--elapsed', default='')
  p.add_argument('--gen-failed', type=int, default=0)
  p.add_argument('--make-rc', type=int, default=0)
  a = p.parse_args()
  a.srcdir = os.path.abspath(a.srcdir)
  a.testdir = os.path.abspath(a.testdir)
  return {'generate': cmd_generate, 'select': cmd_select, 'report': cmd_report}[a.command](a)


if __name__ == '__main__':
  sys.exit(main())
