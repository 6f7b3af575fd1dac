"""What the stub web API (`course.servers.stub_api`) serves: pages, news articles, and how it ranks them.

The answers carry more fields than a model needs (ids, scores, tracking, HTML), as a real
provider's do: the wrapper's job is to trim them.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from course.orders import SHOP_DATE

_DESCALING = [
    "Limescale builds up in every kettle that boils hard water. A thin white layer on the element is harmless, "
    "but it slows heating, wastes energy and flakes into drinks.",
    "Fill the kettle halfway with equal parts water and white vinegar, or dissolve two tablespoons of citric "
    "acid in water. Bring it to the boil, switch it off and leave it for an hour.",
    "Pour the solution away, rinse three times with fresh water and boil once more with clean water before "
    "making tea. Never use a scouring pad on the element: scratches make the next layer stick faster.",
    "How often? With hard water, once a month; with soft water, every three months. A kettle that starts to "
    "rumble loudly or switches off before boiling usually needs descaling.",
    "Manufacturers' warranties rarely cover damage from scale, so keep the kettle clean if you plan to claim "
    "a repair. Filter jugs reduce scale but do not remove it completely.",
]

PAGES: list[dict[str, Any]] = [
    {"url": "https://home.example.org/guides/descale-kettle", "title": "How to descale an electric kettle",
     "text": "\n\n".join(_DESCALING * 6)},  # long on purpose: reading it needs a character budget
    {"url": "https://consumer.example.org/rights/withdrawal", "title": "Your 14-day right of withdrawal",
     "text": "When you buy online in the EU you may cancel within 14 days of delivery without giving a reason. "
             "The seller must refund the price and the standard delivery cost within 14 days of your notice. "
             "You pay the return shipping unless the seller said otherwise. Sealed hygiene products and "
             "made-to-order goods are excluded."},
    {"url": "https://consumer.example.org/rights/faulty-goods", "title": "Faulty goods: repair, replace, refund",
     "text": "Goods must match their description and work for a reasonable time. In the EU the legal guarantee "
             "lasts at least two years. In the first year the seller must prove a fault did not exist at delivery. "
             "You can ask for a repair or a replacement first; a refund follows if neither is possible."},
    {"url": "https://carriers.example.com/dhl/holiday-delays", "title": "DHL parcel delays before the holidays",
     "text": "Parcel volumes double from mid-November. DHL expects deliveries in Germany to take one or two "
             "days longer than usual until December 24. Tracking updates may lag behind the parcel by a day."},
    {"url": "https://carriers.example.com/dpd/tracking-help", "title": "DPD tracking explained",
     "text": "A DPD tracking number has 14 digits. 'In transit' means the parcel left the depot; 'out for "
             "delivery' means it arrives today. If tracking has not changed for five working days, "
             "contact the sender."},
    {"url": "https://kitchen.example.net/reviews/best-kettles-2026", "title": "The best electric kettles of 2026",
     "text": "We boiled 400 litres in twelve kettles. The best models boil a litre in under three minutes, "
             "switch off reliably and have a limescale filter that is easy to remove and rinse."},
    {"url": "https://forum.example.net/members/kettle-complaints", "title": "Members' forum: kettle complaints",
     "text": "", "login": True},
    {"url": "https://wiki.northwind-goods.example/internal/refund-rules", "title": "Internal refund rules",
     "text": "", "private": True},
]

ARTICLES = [
    {"title": "DHL workers in Germany strike for two days", "source": "Logistics Daily", "published": "2026-11-18",
     "url": "https://news.example.com/2026/11/18/dhl-strike",
     "summary": "A two-day strike at DHL hubs in Germany delays parcels by up to three days.", "tags": "dhl delay"},
    {"title": "Kettle model KT-200 recalled over faulty switch", "source": "Consumer Watch", "published": "2026-11-12",
     "url": "https://news.example.com/2026/11/12/kettle-recall",
     "summary": "The KT-200 kettle may not switch off after boiling. Owners should stop using it and ask for a refund.",
     "tags": "kettle recall refund"},
    {"title": "EU agrees on a common charger for kitchen appliances", "source": "Tech Brief", "published": "2026-10-30",
     "url": "https://news.example.com/2026/10/30/common-charger",
     "summary": "Cordless appliances must use USB-C by 2028.", "tags": "eu kettle appliances"},
    {"title": "Online returns hit a record after Black Friday", "source": "Retail Today", "published": "2026-11-19",
     "url": "https://news.example.com/2026/11/19/returns-record",
     "summary": "Shops report a third more returns than last year; most are clothing and small appliances.",
     "tags": "returns refund"},
    {"title": "DPD opens 500 new parcel lockers", "source": "Logistics Daily", "published": "2026-09-02",
     "url": "https://news.example.com/2026/09/02/dpd-lockers", "summary": "Customers can now pick up parcels at night.",
     "tags": "dpd delivery"},
]

WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def search(q: str, n: int) -> list[dict]:
    """Pages ranked by how many query words they contain, with the clutter a real API returns."""
    terms = _words(q)
    scored = [(len(terms & _words(p["title"] + " " + p["text"] + " " + p["url"])), i, p) for i, p in enumerate(PAGES)]
    hits = sorted((s for s in scored if s[0]), key=lambda s: (-s[0], s[1]))[:n]
    return [{"id": f"r{i}", "rank": rank + 1, "score": round(score / max(len(terms), 1), 3), "url": p["url"],
             "title": p["title"], "snippet": (p["text"] or "(no preview: sign-in required)")[:160],
             "language": "en", "crawled_at": "2026-11-20T06:00:00Z", "favicon": "https://static.example/fav.ico",
             "tracking": {"click_id": f"c-{i}-{rank}", "campaign": None}}
            for rank, (score, i, p) in enumerate(hits)]


def news(q: str, n: int, days: int) -> list[dict]:
    since = date.fromisoformat(SHOP_DATE) - timedelta(days=days)
    terms = _words(q)
    hits = [a for a in ARTICLES if date.fromisoformat(a["published"]) >= since
            and terms & _words(a["title"] + " " + a["summary"] + " " + a["tags"])]
    hits.sort(key=lambda a: a["published"], reverse=True)
    return [{**a, "author": "Staff", "image": {"url": a["url"] + ".jpg", "width": 1200, "height": 630},
             "sentiment": 0.0, "body_html": "<p>" + a["summary"] + "</p>"} for a in hits[:n]]
