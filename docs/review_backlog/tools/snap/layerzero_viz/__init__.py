"""layerzero-viz: a visual, offline, deterministic pruning debugger for LLM prompts.

>>> from layerzero_viz import annotate, load_conversation
>>> result = annotate(load_conversation("您好，请问七日年化收益率4.2%是什么意思？"), env={}).at_ratio(0.3)
>>> "4.2%" in result.messages[0].pruned
True
"""
# This is the public API of layerzero_viz.
from .engine import Annotated, Config, annotate
from .errors import DirectiveError, InputError, LayerZeroError, PatternError, ShareLinkError
from .formats import dump_conversation, iter_conversations, load_conversation
from .model import Block, Conversation, Message
from .result import MessageResult, PruneResult

__all__ = [
    "Annotated", "Block", "Config", "Conversation", "DirectiveError", "InputError", "LayerZeroError", "Message",
    "MessageResult", "PatternError", "PruneResult", "ShareLinkError", "annotate", "dump_conversation",
    "iter_conversations", "load_conversation",
]
__version__ = "0.1.0"
