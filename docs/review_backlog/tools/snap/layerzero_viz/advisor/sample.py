"""A synthetic user-message history with known redundant phrases planted in it (zh and en).

Used by the tests (the planted phrases must come out on top), by ``bench/mine.py`` (hundreds of MB,
streamed) and by the app's History page as a sample to try.  Messages vary in their content — products,
places, numbers, dates — so almost no two lines are the same, and a third of them carry a note of made-up
words (names, typos, model names in real traffic), so the vocabulary keeps growing with the file.

>>> lines = list(sample_history(3, seed=1))
>>> len(lines), all(line.startswith('{"text": ') for line in lines)
(3, True)
"""
from __future__ import annotations

import json
import random
from typing import Iterator

__all__ = ["PLANTED", "sample_history"]

# phrase → share of the messages of its language that carry it
PLANTED: dict[str, float] = {
    "麻烦您帮我看一下": 0.35,
    "非常感谢您的耐心解答": 0.3,
    "i was wondering if you could": 0.3,
    "thank you so much in advance": 0.3,
}

_ZH_GREETINGS = ("您好", "你好", "在吗", "客服你好", "")
_ZH_ASKS = (
    "我的订单{n}什么时候发货", "{product}现在多少钱", "能不能把收货地址改成{city}{district}",
    "{product}支持七天无理由退货吗", "上周买的{product}坏了要怎么处理", "{city}{district}的快递大概几天能到",
    "订单{n}的发票开错了抬头", "{product}和{product2}哪个更适合{who}", "优惠券{code}为什么用不了",
    "我想把{product}换成{color}的", "{date}下单的{product}还没收到", "{product}的保修期是多久",
)
_ZH_TAILS = ("", "急用", "谢谢", "在线等", "")
_EN_GREETINGS = ("Hi", "Hello", "Hey there", "Good morning", "")
_EN_ASKS = (
    "check the status of order #{n}", "tell me whether the {product} ships to {city}",
    "change the delivery address to {city}", "explain why coupon {code} does not work",
    "help me return the {product} I bought on {date}", "compare the {product} and the {product2} for {who}",
    "send a new invoice for order #{n}", "tell me if the {product} comes in {color}",
    "extend the warranty of my {product}", "cancel order #{n} before it ships",
)
_PRODUCTS_ZH = ("蓝牙耳机", "空气炸锅", "扫地机器人", "电动牙刷", "机械键盘", "保温杯", "跑步鞋", "投影仪", "电饭煲",
                "加湿器", "显示器", "行李箱")
_PRODUCTS_EN = ("headphones", "air fryer", "robot vacuum", "toothbrush", "keyboard", "water bottle", "running shoes",
                "projector", "rice cooker", "humidifier", "monitor", "suitcase")
_CITIES_ZH = ("杭州", "上海", "北京", "成都", "深圳", "武汉", "西安", "南京")
_DISTRICTS = ("西湖区", "浦东新区", "朝阳区", "武侯区", "南山区", "江汉区", "雁塔区", "鼓楼区")
_CITIES_EN = ("Boston", "Seattle", "Austin", "Denver", "Chicago", "Portland", "Atlanta", "Miami")
_WHO_ZH = ("老人", "学生", "小孩", "上班族")
_WHO_EN = ("a student", "my parents", "a small office", "travel")
_COLORS_ZH = ("黑色", "白色", "蓝色", "红色")
_COLORS_EN = ("black", "white", "blue", "red")


def _fill(template: str, rnd: random.Random, zh: bool) -> str:
    products = _PRODUCTS_ZH if zh else _PRODUCTS_EN
    return template.format(
        n=rnd.randint(10000, 99999999), product=rnd.choice(products), product2=rnd.choice(products),
        city=rnd.choice(_CITIES_ZH if zh else _CITIES_EN), district=rnd.choice(_DISTRICTS),
        code=f"{rnd.choice('ABCDEFGH')}{rnd.randint(100, 999)}", who=rnd.choice(_WHO_ZH if zh else _WHO_EN),
        color=rnd.choice(_COLORS_ZH if zh else _COLORS_EN),
        date=f"{rnd.randint(1, 12)}月{rnd.randint(1, 28)}日" if zh else f"{rnd.randint(1, 12)}/{rnd.randint(1, 28)}",
    )


_ZH_SYLLABLES = "云海星河山川林木风雨花月春秋金银铜铁石玉竹松梅兰菊桃李杏梨江湖溪泉"
_EN_SYLLABLES = ("ka", "lo", "mi", "ran", "tek", "vo", "zu", "bri", "sen", "dor", "pha", "quil", "tro", "nex")


def _rare_zh(rnd: random.Random) -> str:
    return "".join(rnd.choice(_ZH_SYLLABLES) for _ in range(rnd.randint(2, 4)))


def _rare_en(rnd: random.Random) -> str:
    return "".join(rnd.choice(_EN_SYLLABLES) for _ in range(rnd.randint(2, 4)))


def _zh_message(rnd: random.Random) -> str:
    parts = []
    if greeting := rnd.choice(_ZH_GREETINGS):
        parts.append(greeting + "，")
    if rnd.random() < PLANTED["麻烦您帮我看一下"]:
        parts.append("麻烦您帮我看一下，")
    parts.append(_fill(rnd.choice(_ZH_ASKS), rnd, True) + rnd.choice(("？", "。", "！")))
    if rnd.random() < 0.4:
        parts.append(_fill(rnd.choice(_ZH_ASKS), rnd, True) + "？")
    if tail := rnd.choice(_ZH_TAILS):
        parts.append(tail + "。")
    if rnd.random() < 0.33:
        parts.append(f"备注：收件人{_rare_zh(rnd)}，小区{_rare_zh(rnd)}{_rare_zh(rnd)}。")
    if rnd.random() < PLANTED["非常感谢您的耐心解答"]:
        parts.append("非常感谢您的耐心解答！")
    return "".join(parts)


def _en_message(rnd: random.Random) -> str:
    parts = []
    if greeting := rnd.choice(_EN_GREETINGS):
        parts.append(greeting + ",")
    ask = _fill(rnd.choice(_EN_ASKS), rnd, False)
    if rnd.random() < PLANTED["i was wondering if you could"]:
        parts.append(f"I was wondering if you could {ask}?")
    else:
        parts.append(f"Can you {ask}?")
    if rnd.random() < 0.4:
        parts.append(f"Also, please {_fill(rnd.choice(_EN_ASKS), rnd, False)}.")
    if rnd.random() < 0.33:
        parts.append(f"Note: ship to {_rare_en(rnd).title()} {_rare_en(rnd).title()} at {_rare_en(rnd)} lane.")
    if rnd.random() < PLANTED["thank you so much in advance"]:
        parts.append("Thank you so much in advance!")
    return " ".join(parts)


def sample_history(lines: int | None = None, *, seed: int = 0, zh_share: float = 0.5) -> Iterator[str]:
    """JSONL lines ``{"text": …}`` of synthetic user messages (endless when ``lines`` is None)."""
    rnd = random.Random(seed)
    k = 0
    while lines is None or k < lines:
        text = _zh_message(rnd) if rnd.random() < zh_share else _en_message(rnd)
        yield json.dumps({"text": text}, ensure_ascii=False)
        k += 1
