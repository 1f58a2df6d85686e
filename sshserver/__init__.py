"""The built-in ssh server (``stacks serve``).

asyncssh still offers DSA keys, and importing it makes cryptography warn ten times that
DSA is deprecated: words for asyncssh's maintainers, not for an operator starting
``stacks serve``. Only that warning, and only from asyncssh's own modules, is silenced.
"""

import warnings

warnings.filterwarnings("ignore", message="DSA is deprecated", module=r"asyncssh(\.|$)")
