"""How ``benchmarks/selection/scale/items.jsonl`` was built (kept so that it can be rebuilt and
checked; the committed file is the data set, this script is its provenance).

    .venv/bin/python benchmarks/selection/scale_build.py --mirrors DIR
    .venv/bin/python benchmarks/selection/scale_build.py --app-pack-from GIT_DIR

``DIR`` holds bare git snapshots of the source collections as ``owner+name/repo``. Every SKILL.md
with a name and a description becomes an item: its name made a valid skill name (a second item of
the same name gets ``-2``, the original kept in ``original_name``), its description, and its body cut
to the first 2,000 characters. The app pack (``APPS``) is built, not copied: see the README.

``--app-pack-from`` builds ``app_pack.jsonl`` instead, from a bare git snapshot of the Activepieces
repository (``owner+name/repo``): see ``scale_pack.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml
from scale_pack import pack_items

HERE = Path(__file__).resolve().parent / "scale"
BODY_CHARS = 2000

# (repository, licence, how many of its skills to keep: None for all). The cut is deterministic
# (sorted by a hash of the path), so that the set stays about a thousand items.
SOURCES: tuple[tuple[str, str, int | None], ...] = (
    ("github/awesome-copilot", "MIT", 300),
    ("alirezarezvani/claude-skills", "MIT", None),
    ("wshobson/agents", "MIT", None),
    ("daymade/claude-code-skills", "MIT", None),
    ("trailofbits/skills", "CC-BY-SA-4.0", None),
    ("damilola-elegbede/claude-config", "MIT", None),
    ("HamzaAlayed/laravel-claude-agents", "MIT", None),
    ("openai/skills", "Apache-2.0", None),
    ("vercel-labs/agent-skills", "MIT", None),
)

# Real apps with a few of their real operations; the description and body are one template.
APPS: tuple[tuple[str, str], ...] = (
    ("Airtable", "records, bases, tables, views"),
    ("Asana", "tasks, projects, sections, assignees"),
    ("BambooHR", "employees, time off requests, reports"),
    ("Bitbucket", "repositories, pull requests, pipelines"),
    ("Box", "files, folders, shared links"),
    ("Brevo", "email campaigns, contacts, templates"),
    ("Cal.com", "bookings, availability, event types"),
    ("Calendly", "event types, scheduled events, invitees"),
    ("Canva", "designs, brand templates, exports"),
    ("ClickUp", "tasks, lists, spaces, time tracking"),
    ("Clockify", "time entries, projects, reports"),
    ("Coinbase", "accounts, prices, transactions"),
    ("Confluence", "pages, spaces, comments"),
    ("Datadog", "monitors, dashboards, logs, metrics"),
    ("Discord", "messages, channels, roles"),
    ("DocuSign", "envelopes, templates, signatures"),
    ("Dropbox", "files, folders, sharing"),
    ("Evernote", "notes, notebooks, tags"),
    ("Expensify", "expense reports, receipts, policies"),
    ("Facebook", "pages, posts, comments"),
    ("Figma", "files, comments, components"),
    ("Fireflies", "meeting transcripts, summaries, action items"),
    ("Fitbit", "activity, sleep, heart rate"),
    ("Freshdesk", "tickets, contacts, agents"),
    ("FreshBooks", "invoices, clients, expenses"),
    ("GitHub", "issues, pull requests, repositories"),
    ("GitLab", "merge requests, issues, pipelines"),
    ("Gmail", "emails, labels, drafts, threads"),
    ("Gong", "calls, transcripts, deal insights"),
    ("Google Analytics", "reports, properties, key events"),
    ("Google Calendar", "events, calendars, free/busy"),
    ("Google Docs", "documents, text, formatting"),
    ("Google Drive", "files, folders, permissions"),
    ("Google Forms", "forms, questions, responses"),
    ("Google Maps", "places, directions, geocoding"),
    ("Google Meet", "meetings, conference records, participants"),
    ("Google Sheets", "spreadsheets, rows, ranges, formulas"),
    ("Google Tasks", "task lists, tasks, due dates"),
    ("Greenhouse", "candidates, jobs, interviews"),
    ("Gusto", "payroll, employees, contractors"),
    ("Harvest", "time entries, projects, invoices"),
    ("HubSpot", "contacts, deals, companies, tickets"),
    ("Instagram", "media, comments, insights"),
    ("Intercom", "conversations, contacts, articles"),
    ("Jira", "issues, sprints, boards, transitions"),
    ("Klaviyo", "profiles, lists, campaigns, flows"),
    ("Lever", "opportunities, postings, feedback"),
    ("Linear", "issues, projects, cycles, labels"),
    ("LinkedIn", "posts, profile, company pages"),
    ("Mailchimp", "audiences, campaigns, members"),
    ("Medium", "posts, publications"),
    ("Microsoft Teams", "chats, channels, messages, meetings"),
    ("Miro", "boards, sticky notes, frames"),
    ("Monday", "boards, items, columns, updates"),
    ("Netlify", "sites, deploys, forms"),
    ("Notion", "pages, databases, blocks"),
    ("OneDrive", "files, folders, sharing links"),
    ("Otter", "transcripts, conversations, highlights"),
    ("Outlook", "emails, calendar events, contacts"),
    ("PagerDuty", "incidents, services, on-call schedules"),
    ("PayPal", "payments, invoices, payouts"),
    ("Pinterest", "pins, boards"),
    ("Pipedrive", "deals, persons, organizations, activities"),
    ("Plaid", "accounts, transactions, balances"),
    ("QuickBooks", "invoices, customers, bills, reports"),
    ("Ramp", "cards, transactions, reimbursements"),
    ("Reddit", "posts, comments, subreddits"),
    ("Salesforce", "leads, opportunities, accounts, SOQL queries"),
    ("SendGrid", "emails, templates, contacts"),
    ("Sentry", "issues, events, releases"),
    ("Shopify", "products, orders, customers, inventory"),
    ("Slack", "messages, channels, users, reactions"),
    ("Splitwise", "expenses, groups, friends, balances"),
    ("Spotify", "playlists, tracks, playback"),
    ("Square", "payments, orders, catalog, customers"),
    ("Strava", "activities, segments, athlete stats"),
    ("Stripe", "customers, charges, subscriptions, refunds"),
    ("Supabase", "projects, tables, SQL, storage"),
    ("SurveyMonkey", "surveys, responses, collectors"),
    ("Telegram", "messages, chats, bots"),
    ("TikTok", "videos, comments, analytics"),
    ("Todoist", "tasks, projects, labels"),
    ("Toggl", "time entries, projects, workspaces"),
    ("Trello", "boards, cards, lists, checklists"),
    ("Twilio", "SMS, calls, phone numbers"),
    ("Twitter", "tweets, mentions, lists"),
    ("Typeform", "forms, responses, webhooks"),
    ("Vercel", "deployments, projects, domains, env vars"),
    ("Webflow", "sites, CMS collections, items"),
    ("WhatsApp", "messages, templates, media"),
    ("WooCommerce", "products, orders, coupons"),
    ("WordPress", "posts, pages, media, comments"),
    ("Wise", "transfers, balances, recipients"),
    ("Xero", "invoices, contacts, bank transactions"),
    ("YouTube", "videos, playlists, comments, captions"),
    ("Zendesk", "tickets, users, macros"),
    ("Zoho CRM", "leads, contacts, deals, modules"),
    ("Zoom", "meetings, recordings, webinars"),
    ("Zapier", "zaps, tasks, connected apps"),
    ("Xodo", "PDF documents, annotations"),
)

APP_DESCRIPTION = (
    "Automate {app} tasks via the connected MCP tool server: {ops}. Always search tools first for "
    "current schemas."
)
APP_BODY = """# {app} Automation

Automate {app} operations through the {app} toolkit of the connected MCP tool server.

## Prerequisites
- The tool server is connected and lists the {app} toolkit.
- An active {app} connection: check it with the connection manager tool; if it is not active,
  follow the returned authorization link and confirm it before running any {app} tool.
- Always search tools first to get the current schemas for {app}.

## Core workflows
1. Search the tools for the {app} task you need ({ops}).
2. Check the {app} connection and authorize it when needed.
3. Run the tool with the exact field names of the schema the search returned.
4. Report the result to the user, with the IDs of anything created or changed.

## Common pitfalls
- Pagination: follow the next-page token until it is empty.
- Rate limits: back off and retry after the time the error gives.
- IDs, not names: resolve a name to its ID with a list tool before writing.
- Never guess a field name; the schema changes.

## Quick reference
| Task | Approach |
|---|---|
| List or find {app} items | search tools for "{app} list" |
| Create or update in {app} | search tools for "{app} create" or "{app} update" |
| Delete in {app} | confirm with the user first |
"""


def skill_name(raw: str) -> str:
    """A valid skill name (lowercase letters, digits and single hyphens, at most 64)."""
    name = re.sub(r"[^a-z0-9]+", "-", raw.lower()).strip("-")
    return name[:64].rstrip("-") or "skill"


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True
    ).stdout.decode("utf-8", "replace")


def collection_items(mirrors: Path, repo: str, licence: str, keep: int | None) -> list[dict[str, Any]]:
    git_dir = mirrors / repo.replace("/", "+") / "repo"
    commit = _git(git_dir, "rev-parse", "HEAD").strip()[:8]
    paths = [
        p
        for p in _git(git_dir, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
        if p.endswith("SKILL.md")
    ]
    items = []
    for path in paths:
        match = re.match(r"^---\s*\n(.*?)\n---\s*\n?(.*)$", _git(git_dir, "show", f"HEAD:{path}"), re.S)
        if not match:
            continue
        try:
            header = yaml.safe_load(match.group(1))
        except yaml.YAMLError:
            continue
        if not isinstance(header, dict) or not header.get("name") or not header.get("description"):
            continue
        items.append(
            {
                "original_name": str(header["name"]),
                "description": " ".join(str(header["description"]).split()),
                "text": match.group(2).strip()[:BODY_CHARS],
                "source": f"{repo}@{commit}:{path}",
                "licence": licence,
                "group": "collection",
            }
        )
    if keep is not None:
        items = sorted(items, key=lambda i: hashlib.sha256(i["source"].encode()).hexdigest())[:keep]
    return sorted(items, key=lambda i: i["source"])


HELD_OUT = (
    "anthropics/skills",
    "obra/superpowers",
    "K-Dense-AI/claude-scientific-skills",
    "ComposioHQ/awesome-claude-skills",
)


def held_out_descriptions(mirrors: Path) -> set[str]:
    """The first 60 characters of every description in the held-out acceptance collections: a copy
    of one of their skills in another collection is left out too."""
    found = set()
    for repo in HELD_OUT:
        git_dir = mirrors / repo.replace("/", "+") / "repo"
        paths = _git(git_dir, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
        for path in (p for p in paths if p.endswith("SKILL.md")):
            match = re.search(r"description:\s*(.+)", _git(git_dir, "show", f"HEAD:{path}"))
            if match:
                found.add(" ".join(match.group(1).strip().strip('"').split())[:60])
    return found


def app_items() -> list[dict[str, Any]]:
    return [
        {
            "original_name": f"{skill_name(app)}-automation",
            "description": APP_DESCRIPTION.format(app=app, ops=ops),
            "text": APP_BODY.format(app=app, ops=ops).strip(),
            "source": "built: real app name + one template (see README)",
            "licence": "MIT (this repository)",
            "group": "app-template",
        }
        for app, ops in APPS
    ]


def write_app_pack(git_dir: Path) -> None:
    """``app_pack.jsonl``: the apps of the snapshot not already in ``APPS``, named like
    ``app_items`` and unique against ``items.jsonl`` (a second item of a name gets ``-2``)."""
    with (HERE / "items.jsonl").open(encoding="utf-8") as lines:
        seen = {json.loads(line)["name"]: 1 for line in lines}
    fields = ("name", "original_name", "description", "text", "source", "licence", "group")
    written = 0
    with (HERE / "app_pack.jsonl").open("w", encoding="utf-8") as out:
        for item in pack_items(git_dir, (app for app, _ in APPS), APP_DESCRIPTION, APP_BODY):
            base = f"{skill_name(item.pop('app'))[:53]}-automation"
            seen[base] = seen.get(base, 0) + 1
            item["name"] = item["original_name"] = base if seen[base] == 1 else f"{base}-{seen[base]}"
            out.write(json.dumps({k: item[k] for k in fields}, ensure_ascii=False) + "\n")
            written += 1
    print(f"{written} pack items")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mirrors", type=Path)
    parser.add_argument("--app-pack-from", type=Path, metavar="GIT_DIR")
    args = parser.parse_args()
    if args.app_pack_from is not None:
        write_app_pack(args.app_pack_from)
        return
    if args.mirrors is None:
        parser.error("give --mirrors DIR (items.jsonl) or --app-pack-from GIT_DIR (app_pack.jsonl)")
    held_out = held_out_descriptions(args.mirrors)
    items = [
        i
        for repo, lic, keep in SOURCES
        for i in collection_items(args.mirrors, repo, lic, keep)
        if i["description"][:60] not in held_out
    ]
    items += app_items()
    seen: dict[str, int] = {}
    bodies: dict[str, str] = {}
    for item in items:
        base = skill_name(item["original_name"])
        seen[base] = seen.get(base, 0) + 1
        item["name"] = base if seen[base] == 1 else f"{base[:61]}-{seen[base]}"
        digest = hashlib.sha256(item["text"].encode()).hexdigest()
        if digest in bodies and item["group"] == "collection":
            item["same_body_as"] = bodies[digest]
        bodies.setdefault(digest, item["name"])
    fields = ("name", "original_name", "description", "text", "source", "licence", "group", "same_body_as")
    with (HERE / "items.jsonl").open("w", encoding="utf-8") as out:
        for item in items:
            out.write(json.dumps({k: item[k] for k in fields if k in item}, ensure_ascii=False) + "\n")
    print(f"{len(items)} items")


if __name__ == "__main__":
    main()
