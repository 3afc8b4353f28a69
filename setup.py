from configparser import ConfigParser
import setuptools, shlex


# note: all settings are in settings.ini; edit there, not here
config = ConfigParser(delimiters=['='])
config.read('settings.ini', encoding='utf-8')
cfg = config['DEFAULT']

cfg_keys = 'version description keywords author author_email'.split()
expected = cfg_keys + "lib_name user branch license status min_python audience language".split()
for o in expected: assert o in cfg, "missing expected setting: {}".format(o)
setup_cfg = {o:cfg[o] for o in cfg_keys}

licenses = {
    'apache2': ('Apache Software License 2.0','OSI Approved :: Apache Software License'),
}
statuses = [ '1 - Planning', '2 - Pre-Alpha', '3 - Alpha',
    '4 - Beta', '5 - Production/Stable', '6 - Mature', '7 - Inactive' ]
py_versions = '3.10 3.11 3.12'.split()

def reqs(key): return shlex.split(cfg.get(key, '').strip())
requirements = reqs('requirements')
min_python = cfg['min_python']
lic = licenses.get(cfg['license'].lower(), (cfg['license'], None))
# extras: dev (notebooks, tests), cpu (vLLM for CPU hosts), gpu (vLLM for CUDA hosts), eval (MT-Bench's and HumanEval's
# prompt files)
extras = {'dev': reqs('dev_requirements'), 'cpu': reqs('cpu_requirements'), 'gpu': reqs('gpu_requirements'),
          'eval': reqs('eval_requirements')}

setuptools.setup(
    name = cfg['lib_name'],
    license = lic[0],
    classifiers = [
        'Development Status :: ' + statuses[int(cfg['status'])],
        'Intended Audience :: ' + cfg['audience'].title(),
        'Natural Language :: ' + cfg['language'].title(),
    ] + ['Programming Language :: Python :: '+o for o in py_versions[py_versions.index(min_python):]] + (['License :: ' + lic[1] ] if lic[1] else []),
    url = cfg['git_url'],
    packages = setuptools.find_packages(),
    include_package_data = True,
    package_data = {cfg['lib_name']: ['fixtures/**/*', 'fixtures/*', 'data/*', 'presets/*']},
    install_requires = requirements,
    extras_require = extras,
    dependency_links = cfg.get('dep_links','').split(),
    python_requires  = '>=' + cfg['min_python'],
    long_description = open('README.md', encoding='utf-8').read(),
    long_description_content_type = 'text/markdown',
    zip_safe = False,
    entry_points = {
        'console_scripts': cfg.get('console_scripts','').split(),
        'nbdev': [f'{cfg.get("lib_path")}={cfg.get("lib_path")}._modidx:d'],
        # run by vLLM in each of its processes: the AMX switch (EAGLE3_CPU_AMX), and 16-token blocks for its CPU attention
        'vllm.general_plugins': ['eagle3_nb = eagle3_nb.vllm_support:vllm_plugin'],
    },
    **setup_cfg)
