"""Secret forms of issue 26's second round, written before the detector was tuned to them.

``DEV`` are the forms the issue names (the detector was tuned on these); ``HELD_OUT`` are other
phrasings of the same kinds and a few more, written at the same time and NOT looked at while
tuning: their recall is the figure that says whether the rules generalise. ``LOOK_ALIKES_DEV`` are
the three false alarms the issue names; ``LOOK_ALIKES_HELD_OUT`` are benign texts of similar shape.
All values are random strings made for this file (or public documentation examples); none is real.
"""

from __future__ import annotations

AWS_SECRET = "LQLVS6aSAxwzyTjrb00IvD6J+n8UcA3ay32+lNwB"
AWS_SECRET_2 = "LfX0UH812hXv8lmNHd1Ru9RXa+3SgH2M6Bgcra60"
SEED_12 = "draw cheese comic off hybrid rhythm escape rate fat drip decide coach"
SEED_24 = ("lawn basic onion airport debate eager tribe grow poet dune young margin rapid truck taste feature "
           "kitchen club margin sort tunnel chief bitter shove")
FCM = ("AAAAIPWwzK2:APA91bxyDmysuhpb45yFfVjgtYYTS7t0fKSiewa3k1-9rpoNTzjh_VYSohsCJjgjqqo6QuKnPbPoAGI6mtolQIJ_ZQht"
       "P0_ar7XDclzHNBcXkFu2caEmy2yo43QfynZj4ipYpZjXINFT")
ETH_KEY = "0xc9a8410c73c560fb91bc23b605bd9a1bc1ceeaa6e222f1a5d0ce9d045bf3bb23"
ETH_KEY_BARE = "87c79c41c528f6cbd950388e33425770748eaaf6a0791497fe2900a58d36a4d1"
GITHUB = "ghp_T2wQY5vgYcY5ujEdYpg0WHtArRpirPIu8PpQ"
FULL_WIDTH_GITHUB = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in GITHUB)

DEV = [
    f"The AWS secret access key for the backup bucket is {AWS_SECRET}, rotate it monthly.",
    "The password for the staging database that Maya set up last week is s%Tu%AmWoKZu4s",
    "Our API key for the weather service we pay for is 31gASZx8Uoo3POwIFnNWzhlSvALg18KU",
    "| service | user | password |\n|---|---|---|\n| grafana | admin | k2#TTH!v8I0G |",
    "Log in to the router with admin / PhJ7vMY8S78HfhH7 from the office network.",
    "Deploy with sshpass -p MUQ2X0i60Jr ssh deploy@10.0.4.12 until keys are set up.",
    "Connect with mysql -u root -pt3Adhcqnenixh -h db.internal shop",
    "wifi guest network, pw: VfJnPh#1yY",
    "SMTP relay: user alerts@example.org pass k2#TTH!v8I0G port 587",
    f"Clone from https://{GITHUB}@github.com/acme/infra.git for the deploy job.",
    "Zapier posts to https://hooks.zapier.com/hooks/catch/8867494/cw5p5w/ when a form is sent.",
    f"The FCM legacy server key is {FCM}",
    f"The wallet's private key is {ETH_KEY}",
    f"My recovery phrase: {SEED_12}",
    f"The deploy token is {FULL_WIDTH_GITHUB}",
    "The Anthropic key is sk-ant-api03-" + "A" * 100 + "-AAAAAAAA",
]

HELD_OUT = [
    f"aws secret access key (prod, read only) -> {AWS_SECRET_2}",
    f"Remember: AWS_SECRET_ACCESS_KEY for the ci user is {AWS_SECRET_2}",
    "the admin password we agreed on for the NAS in the basement: PhJ7vMY8S78HfhH7",
    "Vault unseal: the root login password on the old Jenkins box is still MUQ2X0i60Jr",
    "| host | login | pass |\n| --- | --- | --- |\n| nas01 | root | s%Tu%AmWoKZu4s |",
    "ssh with root / k2#TTH!v8I0G on the lab machines",
    "Run sshpass -p 'VfJnPh#1yY' scp backup.tar nas:/srv to copy the backup.",
    "Use mysqldump -uadmin -pMUQ2X0i60Jr --all-databases > dump.sql nightly.",
    "PW: t3Adhcqnenixh (the shared mailbox)",
    "mail server credentials: smtp.example.org, username reports, password PhJ7vMY8S78HfhH7",
    "Mirror with git clone https://oauth2:wa2i27cp3f0pfqm0f5ixpj0k4lgsaw8d1fcc@gitlab.example.com/team/app.git",
    "The form webhook is https://hooks.zapier.com/hooks/catch/1234567/abc12de/ (keep it private).",
    f"firebase server key: {FCM}",
    f"ETH private key {ETH_KEY_BARE} for the test wallet",
    f"seed words for the hardware wallet are {SEED_24}",
    "The token is ｓｋ－ａｎｔ－ａｐｉ０３－" + "ｂ" * 40 + "Ｘ９ｚ" + "ｃ" * 50 + "－ＡＢＣＤＥＦＧＨ",
    "Stripe live key: sk_live_" + "0" * 24,
    "slack bot token xoxb-" + "1" * 12 + "-" + "2" * 12 + "-" + "a" * 24,
]

LOOK_ALIKES_DEV = [
    "Sentry event 75f6b5f33e114ad1458c96fe953d5bd5 shows the crash in the checkout worker.",
    "OpenAI answered with request id req_4087a275168339d84f7e396fb1a878cd and a 429.",
    "The AWS docs use AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY as sample keys.",
]

LOOK_ALIKES_HELD_OUT = [
    "Sentry issue id 97b8565ee31fcda288947a665a385c63 was resolved in release 4.2.",
    "The failing request had x-request-id req_9cb7ca7fc7b0f16ddd2f079cec26dc02 in the logs.",
    "Commit 996649fe210f5f55f691a5f472ee785dac02a06e fixed the password reset form.",
    "Trace 97b8565e-e31f-cda2-8894-7a665a385c63 spans the API gateway and the queue.",
    "The admin / user split in the dashboard confused the new team members.",
    "Set the password policy to at least 12 characters with one symbol.",
    "Maya's pw manager is 1Password; she says pass the salt before the soup.",
    "The word list of the game includes draw, cheese, comic and coach.",
    "The ETH price at 0x10 on the chart looked odd to the finance team.",
    "Run mysql -u root -p and type the password when asked.",
    "Use sshpass -p \"$SSH_PASS\" from the environment, never a literal.",
    "Our wiki table lists | service | owner | with grafana owned by the infra team.",
    "AWS example keys such as AKIAIOSFODNN7EXAMPLE are in the SDK docs; never use them.",
    "The webhook docs say hooks.zapier.com is where catch hooks live.",
]
