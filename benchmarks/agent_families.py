"""Template families of agent-memory facts for ``benchmarks.agent_pairs``.

A family is one domain: subjects of one kind, values of one attribute, and sentence shapes.
``{s}`` is the subject as it reads mid-sentence, ``{S}`` the same at the start, ``{v}`` the value.

* ``shapes``: ways to state the fact (a restatement may use any other one);
* ``restatements``: further wordings with the same subject and value;
* ``updates``: wordings that say the value is new ("now", "moved to", "was upgraded to", "since").

``held_out`` families are never looked at while tuning the classifier; their figures are the
ones reported. The split keeps domains apart: people's jobs are tuned on, people's homes are not.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    name: str
    held_out: bool
    subjects: tuple[str, ...]
    values: tuple[str, ...]
    shapes: list[str]
    restatements: list[str]
    updates: list[str]


PEOPLE = ("Lena", "Marco", "Priya", "Tomasz", "Aiko", "Daniel", "Fatima", "Jonas", "Sofia", "Kwame", "Elena",
          "Ravi", "Hannah", "Mateo", "Yuki", "Oskar")

FAMILIES: tuple[Family, ...] = (
    # --- tuning families -------------------------------------------------------------------
    Family("employer", False, PEOPLE,
           ("Brightline Labs", "Corvid Systems", "Northwind Robotics", "Helio Analytics", "Quarry Bank",
            "Tidewater Health", "Ostrava Motors", "Pinecrest Studio", "Lumen Logistics"),
           ["{S} works at {v}.", "{S} is employed by {v}.", "{S}'s employer is {v}."],
           ["{S} has a job at {v}.", "{v} is where {s} works.", "{S} works for {v}."],
           ["{S} now works at {v}.", "{S} moved to {v}.", "{S} switched jobs and now works at {v}.",
            "{S} has joined {v} and no longer works at the old place.", "{S} is now employed by {v}."]),
    Family("meetings", False,
           ("the weekly sync", "the design review", "the platform standup", "the sprint retro", "the budget call",
            "the hiring panel", "the security review"),
           ("Tuesdays at 10:00", "Thursdays at 10:00", "Mondays at 14:30", "Fridays at 09:00",
            "Wednesdays at 16:00", "Tuesdays at 15:00"),
           ["{S} is on {v}.", "{S} takes place on {v}.", "We hold {s} on {v}."],
           ["{S} happens on {v}.", "{S} is scheduled for {v}.", "{S} meets on {v}."],
           ["{S} moved to {v}.", "{S} is now on {v}.", "{S} was rescheduled to {v}.",
            "From now on {s} is on {v}.", "{S} has been moved to {v}."]),
    Family("hosting", False,
           ("the billing API", "the auth service", "the search indexer", "the payments gateway", "the metrics pipeline",
            "the notification worker", "the admin dashboard"),
           ("eu-west-1", "us-east-2", "ap-southeast-1", "eu-central-1", "us-west-2", "the Frankfurt data centre"),
           ["{S} runs in {v}.", "{S} is deployed to {v}.", "{S} is hosted in {v}."],
           ["{S} lives in {v}.", "We deploy {s} to {v}.", "{S} is running in {v}."],
           ["{S} was migrated to {v}.", "{S} now runs in {v}.", "{S} moved to {v}.",
            "As of last week {s} runs in {v}.", "{S} is now hosted in {v}."]),
    Family("versions", False,
           ("the Postgres cluster", "our Node runtime", "the Kafka brokers", "the Python toolchain",
            "the Redis cache", "the Elasticsearch cluster", "the Kubernetes control plane"),
           ("version 14.2", "version 15.1", "version 16.0", "version 3.11", "version 7.2", "version 1.29",
            "version 8.4"),
           ["{S} runs {v}.", "{S} is on {v}.", "{S} uses {v}."],
           ["We run {s} at {v}.", "{S} is at {v}.", "{S} is running {v}."],
           ["{S} was upgraded to {v}.", "{S} is now on {v}.", "{S} now runs {v}.", "{S} was bumped to {v}.",
            "Since the last upgrade {s} runs {v}."]),
    Family("numbered", False,
           tuple(f"build server number {n}" for n in (3, 7, 12, 13, 21, 40, 41)) +
           tuple(f"rack {n}" for n in (2, 5, 9)),
           ("the nightly backup", "the integration tests", "the release builds", "the nightly job for team 4",
            "the nightly job for team 6", "the load tests", "the docs site build"),
           ["{S} runs {v}.", "{S} handles {v}.", "{S} is responsible for {v}."],
           ["{S} takes care of {v}.", "{v} runs on {s}.", "{S} is the machine for {v}."],
           ["{S} now runs {v}.", "{S} was switched to {v}.", "{S} has been reassigned to {v}.",
            "{S} no longer runs the old job; it runs {v} now."]),
    Family("preferences", False, PEOPLE,
           ("green tea", "black coffee", "oat milk lattes", "sparkling water", "hot chocolate", "mint tea",
            "espresso"),
           ["{S} prefers {v}.", "{S}'s favourite drink is {v}.", "{S} likes {v} best."],
           ["{S} usually drinks {v}.", "{S} always goes for {v}.", "What {s} likes most is {v}."],
           ["{S} now prefers {v}.", "{S} switched to {v}.", "These days {s} prefers {v}.",
            "{S} has switched to {v} and no longer drinks the old one.", "{S}'s favourite drink is now {v}."]),
    Family("ticket-owner", False,
           ("ticket OPS-4821", "ticket OPS-4822", "ticket WEB-310", "ticket WEB-311", "bug #5512", "bug #5519",
            "incident INC-77"),
           ("Priya", "Tomasz", "Aiko", "Daniel", "Fatima", "Jonas"),
           ["{S} is assigned to {v}.", "{S} is owned by {v}.", "{v} owns {s}."],
           ["{v} is working on {s}.", "{S} belongs to {v}.", "The assignee of {s} is {v}."],
           ["{S} was reassigned to {v}.", "{S} is now assigned to {v}.", "{v} took over {s}.",
            "{S} moved to {v}.", "{v} now owns {s}."]),
    Family("editor", False, PEOPLE,
           ("VS Code", "Vim", "Emacs", "Sublime Text", "IntelliJ IDEA", "Helix", "Zed"),
           ["{S} uses {v} as their editor.", "{S}'s editor is {v}.", "{S} writes code in {v}."],
           ["{S} codes in {v}.", "{S}'s editor of choice is {v}.", "For editing {s} uses {v}."],
           ["{S} switched to {v}.", "{S} now uses {v} as their editor.", "{S} moved from the old editor to {v}.",
            "{S}'s editor is now {v}."]),
    Family("config", False,
           ("the gateway request timeout", "the upload size limit", "the session lifetime", "the retry budget",
            "the worker pool size", "the cache TTL"),
           ("30 seconds", "60 seconds", "5 minutes", "90 seconds", "2 minutes", "15 seconds"),
           ["{S} is set to {v}.", "{S} is {v}.", "We configured {s} to {v}."],
           ["{S} has a value of {v}.", "{S} stands at {v}.", "{S} is configured as {v}."],
           ["{S} was changed to {v}.", "{S} is now {v}.", "{S} was raised to {v}.", "{S} was lowered to {v}.",
            "Since the last deploy {s} is {v}."]),

    # --- held-out families (never tuned on) -----------------------------------------------
    Family("home", True, PEOPLE,
           ("Lisbon", "Rotterdam", "Krakow", "Osaka", "Toronto", "Nairobi", "Valencia", "Leipzig"),
           ["{S} lives in {v}.", "{S} is based in {v}.", "{S}'s home is in {v}."],
           ["{S} resides in {v}.", "{S} makes their home in {v}.", "Home for {s} is {v}."],
           ["{S} moved to {v}.", "{S} now lives in {v}.", "{S} relocated to {v} in March.",
            "{S} has lived in {v} since May.", "{S} is now based in {v}."]),
    Family("team-lead", True,
           ("the data platform team", "the mobile team", "the SRE team", "the growth team", "the billing team",
            "the research team"),
           ("Priya", "Tomasz", "Aiko", "Daniel", "Fatima", "Jonas", "Elena"),
           ["{v} leads {s}.", "{S} is led by {v}.", "The lead of {s} is {v}."],
           ["{v} heads {s}.", "{S} reports to {v}.", "{v} is the manager of {s}."],
           ["{v} took over {s}.", "{v} now leads {s}.", "{S} is now led by {v}.",
            "Since April {s} has been led by {v}."]),
    Family("deadline", True,
           ("the Atlas migration", "the Q3 report", "the onboarding redesign", "the SOC 2 audit",
            "the mobile release", "the pricing page"),
           ("March 14", "April 2", "May 30", "June 18", "July 1", "September 9"),
           ["{S} is due on {v}.", "The deadline for {s} is {v}.", "{S} has to ship by {v}."],
           ["{S} must be done by {v}.", "We need {s} finished by {v}.", "{S} is due {v}."],
           ["{S} was pushed to {v}.", "{S} is now due on {v}.", "The deadline for {s} moved to {v}.",
            "{S} got postponed to {v}.", "The deadline for {s} is now {v}."]),
    Family("storage", True,
           ("the analytics service", "the user profile service", "the audit log", "the feature store",
            "the chat backend", "the image service"),
           ("Postgres", "MySQL", "DynamoDB", "Cassandra", "MongoDB", "SQLite", "ClickHouse"),
           ["{S} stores its data in {v}.", "{S} uses {v} as its database.", "{S} keeps its records in {v}."],
           ["{S} is backed by {v}.", "The database behind {s} is {v}.", "{S} persists to {v}."],
           ["{S} switched its storage to {v}.", "{S} now stores its data in {v}.", "{S} was moved to {v}.",
            "{S} migrated to {v} last sprint.", "{S} no longer uses the old database; it uses {v} now."]),
    Family("oncall", True,
           ("the payments rotation", "the infra rotation", "the database rotation", "the frontend rotation",
            "the support rotation"),
           ("Priya", "Tomasz", "Aiko", "Daniel", "Fatima", "Ravi", "Hannah"),
           ["{v} is on call for {s} this week.", "This week {s} is covered by {v}.", "{v} holds the pager for {s}."],
           ["{v} is the on-call engineer for {s} this week.", "The pager for {s} is with {v} this week.",
            "{v} covers {s} this week."],
           ["{v} took over {s} this week.", "{v} is now on call for {s}.", "{S} moved to {v}.",
            "{S} switched to {v} as of today."]),
    Family("car", True, PEOPLE,
           ("a blue Volvo estate", "a red Skoda Octavia", "a grey Toyota Prius", "a white Tesla Model 3",
            "a green Fiat Panda", "a black Ford Focus"),
           ["{S} drives {v}.", "{S}'s car is {v}.", "{S} owns {v}."],
           ["{S} gets around in {v}.", "The car {s} drives is {v}.", "{S} has {v}."],
           ["{S} now drives {v}.", "{S} traded in the old car for {v}.", "{S} bought {v} and sold the old one.",
            "{S}'s car is now {v}."]),
    Family("budget", True,
           ("the Atlas migration", "the conference trip", "the hiring plan", "the marketing campaign",
            "the office refit"),
           ("$12,000", "$15,500", "$8,000", "$40,000", "$22,750", "$9,900"),
           ["The budget for {s} is {v}.", "{S} has a budget of {v}.", "We set aside {v} for {s}."],
           ["{S} is budgeted at {v}.", "{S} may spend {v}.", "The money for {s} comes to {v}."],
           ["The budget for {s} was raised to {v}.", "{S} now has a budget of {v}.",
            "The budget for {s} was cut to {v}.", "The budget for {s} is now {v}."]),
    Family("project-status", True,
           ("the Atlas migration", "the onboarding redesign", "the search rewrite", "the SSO rollout",
            "the data retention policy", "the API v2 launch"),
           ("in review", "blocked on legal", "in progress", "shipped", "paused", "waiting for QA"),
           ["{S} is {v}.", "The status of {s} is {v}.", "{S} is currently {v}."],
           ["Right now {s} is {v}.", "{S}: status {v}.", "Status of {s}: {v}."],
           ["{S} is now {v}.", "{S} moved to {v}.", "As of today {s} is {v}.",
            "The status of {s} changed to {v}."]),
    Family("language", True, PEOPLE,
           ("Rust", "Go", "TypeScript", "Kotlin", "Python", "Elixir", "Swift"),
           ["{S}'s main language is {v}.", "{S} mostly writes {v}.", "{S} works mainly in {v}."],
           ["{S} programs mostly in {v}.", "Most of {s}'s code is {v}.", "{S}'s language of choice is {v}."],
           ["{S} switched to {v}.", "{S} now mostly writes {v}.", "{S}'s main language is now {v}.",
            "{S} moved over to {v} this year."]),
)
