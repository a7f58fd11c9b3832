"""Provider facts from the maintained public catalogues, in this project's own rules.

Prefixes, alphabets and lengths were read from the rule definitions of
gitleaks (``config/gitleaks.toml``), trufflehog (``pkg/detectors/*``) and
detect-secrets (``detect_secrets/plugins``), never from their test samples.
Their regexes do not carry over: lengths here are generous ranges with a sane
upper bound (providers lengthen keys; a pasted key may be cut), and each
token must still pass a placeholder check. ``VENDOR_NAMES`` are the provider
names those catalogues key on (``abyssale``, ``mailgun``): a random value
within a few words after one is a credential even when no ``key`` or
``token`` is written (``engine.secret_context``).
"""

from __future__ import annotations

from typing import NamedTuple


class PrefixRule(NamedTuple):
    """A self-identifying credential format; ``check`` names a key of ``secret_rules.FORMAT_CHECKS``."""

    name: str
    pattern: str
    check: str = "placeholder"


# A token must not be the tail or head of a longer word, path or base64 run ...
_B = r"(?<![A-Za-z0-9_+/.~-])"
_E = r"(?![A-Za-z0-9_+/~-])"
# ... but a prefix this distinctive may sit between ``/`` or ``.`` (a URL path, ``host/ghp_.../repos``).
_P = r"(?<![A-Za-z0-9_+~-])"
_EP = r"(?![A-Za-z0-9_+~-])"
_A = "A-Za-z0-9"


def _tok(prefix: str, body: str, low: int, high: int | None = None, start: str = _P) -> str:
    """``prefix`` + ``low..high`` body characters (``high`` defaults to a generous bound)."""
    high = high if high is not None else max(2 * low, low + 40)
    return f"{start}{prefix}[{body}]{{{low},{high}}}{_EP if start == _P else _E}"


CATALOGUE_RULES: tuple[PrefixRule, ...] = (
    # AI providers.
    PrefixRule("anthropic-api-key", _P + r"sk-ant-(?:api|admin|sid|oat|ort)\d\d-[\w-]{40,200}" + _EP, "stand-in"),
    PrefixRule("openai-api-key", _P + r"sk-(?:proj|svcacct|service|admin|None)-[\w-]{40,250}" + _EP),
    PrefixRule("openrouter-api-key", _tok("sk-or-v1-", "a-f0-9", 48, 80)),
    PrefixRule("langfuse-secret-key", _P + r"sk-lf-[0-9a-f]{8}-[0-9a-f-]{27,40}" + _EP),
    PrefixRule("groq-api-key", _tok("gsk_", _A, 40, 80)),
    PrefixRule("xai-api-key", _tok("xai-", _A + "_", 60, 120)),
    PrefixRule("perplexity-api-key", _tok("pplx-", _A, 40, 80)),
    PrefixRule("nvidia-api-key", _tok("nvapi-", _A + "_-", 50, 90)),
    PrefixRule("replicate-api-token", _tok("r8_", _A + "_-", 30, 60)),
    PrefixRule("pinecone-api-key", _P + r"pcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{50,90}" + _EP),
    PrefixRule("langsmith-api-key", _P + r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{8,12}" + _EP),
    PrefixRule("elevenlabs-api-key", _tok("sk_", "a-f0-9", 48, 64, start=_B)),
    # Code hosting, CI and package registries.
    PrefixRule("gitlab-token", _P + r"(?:glimt|glagent|gloas|glcbt|glsoat|glrt|glffct|glft|gldt)-[\w.-]{20,120}" + _EP),
    PrefixRule("gitlab-token", _P + r"GR1348941[\w-]{20,60}" + _EP),
    PrefixRule("gitlab-session-cookie", r"(?<=_gitlab_session=)[0-9a-z]{32,64}" + _E),
    PrefixRule("bitbucket-token", _tok("BBDC-", _A + "+/@_-", 40, 80)),
    PrefixRule("bitbucket-token", _P + r"ATCTT3xFfG[\w+/=-]{40,400}" + _EP),
    PrefixRule("buildkite-token", _tok("bkua_", "a-z0-9", 40, 60)),
    PrefixRule("circleci-token", _P + r"CCIPAT_[A-Za-z0-9]{20,30}_[a-fA-F0-9]{40}" + _EP),
    PrefixRule("dockerhub-token", _P + r"dckr_(?:pat|oat)_[\w-]{24,60}" + _EP),
    PrefixRule("rubygems-api-token", _tok("rubygems_", "a-f0-9", 48, 64)),
    PrefixRule("clojars-api-token", _tok("CLOJARS_", "a-z0-9", 50, 80)),
    PrefixRule("readme-api-token", _tok("rdme_", "a-z0-9", 60, 90)),
    PrefixRule("pulumi-api-token", _tok("pul-", "a-f0-9", 40, 60)),
    PrefixRule("prefect-api-token", _tok("pnu_", _A, 30, 60)),
    PrefixRule("sonarcloud-token", _tok("sq[copa]_", _A, 40, 70)),
    PrefixRule("sourcegraph-token", _P + r"sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}" + _EP),
    PrefixRule("sourcegraph-cody-token", _tok("slk_", "a-f0-9", 64, 80)),
    PrefixRule("jfrog-token", _P + r"(?:AKCp[A-Za-z0-9]{60,80}|cmVmdGtu[A-Za-z0-9]{50,70})" + _EP, "random"),
    PrefixRule("harness-token", _P + r"(?:pat|sat)\.[\w-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}" + _EP),
    PrefixRule("infracost-api-token", _tok("ico-", _A, 32, 48, start=_B)),
    PrefixRule("scalingo-api-token", _tok("tk-us-", r"\w-", 40, 64)),
    PrefixRule("frameio-api-token", _tok("fio-u-", r"\w=-", 60, 80)),
    PrefixRule("terraform-token", _P + r"[A-Za-z0-9]{14}\.atlasv1\.[\w=-]{60,100}" + _EP),
    # Cloud, hosting and data.
    PrefixRule("alibaba-access-key-id", r"(?<![A-Za-z0-9])LTAI[A-Za-z0-9]{12,30}(?![A-Za-z0-9])", "random"),
    PrefixRule("tailscale-key", _P + r"tskey-[a-z]+-[A-Za-z0-9_]{5,}-[A-Za-z0-9_]{10,}" + _EP),
    PrefixRule("supabase-token", _tok("sbp_", "a-f0-9", 40, 60)),
    PrefixRule("digitalocean-token", _tok("do[opr]_v1_", "a-f0-9", 64, 80)),
    PrefixRule("cloudflare-api-token", _P + r"(?:cf[ua]t_[A-Za-z0-9]{40,50}|cfk_[A-Za-z0-9]{40,50})" + _EP),
    PrefixRule("cloudflare-origin-ca-key", _P + r"v1\.0-[a-f0-9]{24}-[a-f0-9]{140,160}" + _EP, ""),
    PrefixRule("yandex-token", _P + r"(?:AQVN[\w-]{35,40}|t1\.[\w-]+=*\.[\w-]{80,90}=*)" + _EP, "random"),
    PrefixRule("google-oauth-token", _P + r"ya29\.[\w-]{20,2000}" + _EP, "random"),
    PrefixRule("google-oauth-client-secret", _tok("GOCSPX-", r"\w-", 24, 40)),
    PrefixRule("dropbox-token", _P + r"sl\.(?:u\.)?[\w=-]{120,1400}" + _EP),
    PrefixRule("airtable-token", _P + r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _EP),
    PrefixRule("contentful-token", _tok("CFPAT-", r"\w-", 40, 60)),
    PrefixRule("notion-token", _P + r"(?:ntn_\d{11}[A-Za-z0-9]{32,40}|secret_[A-Za-z0-9]{43})" + _EP),
    PrefixRule("linear-api-key", _tok("lin_(?:api|oauth)_", _A, 40, 64)),
    PrefixRule("figma-token", _tok("fig[dopu]_", r"\w=-", 40, 64)),
    PrefixRule("posthog-personal-key", _tok("phx_", r"\w", 40, 60)),
    PrefixRule("hubspot-token", _P + r"pat-(?:eu|na)\d-[A-Za-z0-9]{8}-[A-Za-z0-9-]{27,40}" + _EP),
    PrefixRule("adobe-client-secret", _tok("p8e-", _A, 32, 48)),
    PrefixRule("datadog-token", _tok("dd[pw]_", _A, 32, 48)),
    PrefixRule("defined-networking-token", _P + r"dnkey-[\w=-]{26}-[\w=-]{52}" + _EP),
    PrefixRule("postman-api-key", _P + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _EP),
    PrefixRule("maxmind-license-key", _P + r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk" + _EP),
    PrefixRule("nightfall-api-key", _tok("NF-", _A, 32, 48)),
    PrefixRule("ubidots-token", _tok("BBFF-", _A, 30, 40)),
    PrefixRule("intra42-client-secret", _P + r"[su]-s4t2(?:ud|af)-[a-f0-9]{64}" + _EP),
    PrefixRule("clickhouse-cloud-key", r"(?<![A-Za-z0-9])4b1d[A-Za-z0-9]{38,48}" + _E, "random"),
    PrefixRule("salad-cloud-key", _P + r"salad_cloud_[A-Za-z0-9]{1,7}_[A-Za-z0-9]{7,235}" + _EP),
    PrefixRule("rootly-api-key", _tok("rootly_", "a-f0-9", 64, 80)),
    PrefixRule("apify-token", _tok("apify_api_", _A, 30, 50)),
    PrefixRule("alchemy-token", _tok("alcht_", _A, 28, 40)),
    PrefixRule("voiceflow-key", _P + r"VF\.(?:(?:DM|WS)\.)?[a-fA-F0-9]{24}\.[A-Za-z0-9]{16}" + _EP),
    PrefixRule("zoho-token", _P + r"1000\.[a-f0-9]{32}\.[a-f0-9]{32}" + _EP),
    PrefixRule("teamwork-token", _tok(r"tkn\.v1_", _A + "=", 60, 90)),
    PrefixRule("flexport-token", _tok("shltm_", r"\w-", 40, 50)),
    PrefixRule("thog-key", _P + r"thog-(?:key-[0-9a-f]{16}|secret-[0-9a-f]{32})" + _EP, ""),
    PrefixRule("endorlabs-key", _P + r"endr\+[A-Za-z0-9-]{16,32}" + _EP),
    PrefixRule("bannerbear-key", _tok("bb_(?:pr|ma)_", "a-f0-9", 30, 40)),
    PrefixRule("klaviyo-private-key", _P + r"pk_(?:[A-Za-z0-9]{6}_)?[a-f0-9]{34}" + _EP),
    PrefixRule("launchdarkly-key", _B + r"(?:api|sdk)-[a-z0-9]{8}-[a-z0-9]{4}-4[a-z0-9]{3}-[a-z0-9]{4}-[a-z0-9]{12}"
               + _E, "random"),
    PrefixRule("robinhood-key", _P + r"rh-api-[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}" + _EP),
    PrefixRule("tableau-token", r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{22}==:[A-Za-z0-9]{32}" + _E, "random"),
    PrefixRule("azure-container-registry-key", r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{42}\+ACR[A-Za-z0-9]{6}" + _E),
    PrefixRule("lob-api-key", _B + r"(?:live|test)_(?:pub_)?[a-f0-9]{31,35}" + _E, "random"),
    # Payments and commerce: only secret and restricted keys, never object ids (``OBJECT_ID_PREFIXES``).
    PrefixRule("stripe-webhook-secret", _tok("whsec_", _A + "+/=", 24, 80)),
    PrefixRule("stripe-client-secret", _P + r"(?:pi|seti)_[A-Za-z0-9]{14,40}_secret_[A-Za-z0-9]{16,40}" + _EP, ""),
    PrefixRule("razorpay-key", _tok("rzp_live_", _A, 14, 32)),
    PrefixRule("pagarme-key", _tok("ak_live_", _A, 28, 40)),
    PrefixRule("fleetbase-key", _tok("flb_live_", _A, 20, 40)),
    PrefixRule("shippo-api-token", _tok("shippo_(?:live|test)_", "a-fA-F0-9", 40, 50)),
    PrefixRule("duffel-api-token", _tok("duffel_(?:test|live)_", r"\w=-", 40, 60)),
    PrefixRule("gocardless-api-token", _tok("live_", r"\w=-", 40, 48, start=_B), "random"),
    PrefixRule("flutterwave-key", _P + r"FLWSECK(?:_TEST)?-[a-h0-9]{12,32}(?:-X)?" + _EP),
    PrefixRule("square-token", _P + r"(?:sandbox-)?sq0(?:i[a-z]{2}|c[a-z]{2}|atp|csp)-[\w-]{22,60}" + _EP),
    PrefixRule("ramp-key", _P + r"ramp_(?:id|sec)_[A-Za-z0-9]{40,60}" + _EP),
    PrefixRule("plaid-access-token", _P + r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f-]{27}" + _EP),
    # Messaging, mail and monitoring.
    PrefixRule("slack-token", r"(?<![A-Za-z0-9])(?:xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+"
               r"|xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,200}|xox[cd]-[\w%.-]{30,})" + _E),
    PrefixRule("slack-token", r"(?<![A-Za-z0-9])xox[ar]-(?:\d-)?[A-Za-z0-9]{8,48}" + _E, "random"),
    PrefixRule("sendinblue-api-key", _P + r"xkeysib-[\w-]{64,100}" + _EP),
    PrefixRule("mailgun-signing-key", r"(?<![a-h0-9])[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}(?![a-h0-9-])", "random"),
    PrefixRule("newrelic-key", _P + r"(?:NRBR-[0-9a-f]{19}|NRIQ-[\w-]{25,40}|NRJS-[a-f0-9]{19})" + _EP),
    PrefixRule("newrelic-key", _B + r"(?:[0-9a-f]{32}|eu01xx[0-9a-f]{26})FFFFNRAL" + _E),
    PrefixRule("newrelic-key", _B + r"(?:AA[0-9a-f]{40}|eu01xx[0-9a-f]{36})-NRMA" + _E),
    PrefixRule("typeform-token", _tok("tfp_", r"\w.=-", 40, 64)),
    PrefixRule("pubnub-key", _P + r"(?:pub|sub|sec)-c-[0-9a-z]{8}-[0-9a-z-]{27}" + _EP),
    PrefixRule("twitter-bearer-token", r"(?<![A-Za-z0-9%])A{22}[A-Za-z0-9%]{60,140}" + _E),
    PrefixRule("mapbox-token", _P + r"sk\.eyJ[\w.-]{60,240}" + _EP),
    PrefixRule("authress-key", _P + r"(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}"
               r"\.[\w+/=-]{30,120}" + _EP),
    PrefixRule("aws-bedrock-api-key", _P + r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=]{20,2000}", ""),
    # A JWT, base64-encoded again: ``eyJ`` becomes ``ZXlK``, and ``.eyJ`` one of three shifts.
    PrefixRule("jwt-base64", r"(?<![A-Za-z0-9+/])ZXlK[A-Za-z0-9+/]{16,400}?(?:LmV5S|5leUp|uZXlK)"
               r"[A-Za-z0-9+/]{16,}={0,2}", ""),
)

# Stripe's object ids name a payment, a customer or an event (``pi_3Mtw...``, ``cus_...``,
# ``evt_...``): they open nothing. Its secrets are ``sk_``/``rk_`` keys and ``whsec_`` signing secrets.
OBJECT_ID_PREFIXES = frozenset("""
pi pm ch cus evt in ii il sub si prod price txn re src tok seti setatt acct po tr py ba card cs plink promo di dp du
fee file link ipi iv ic mbur cbtxn btok pyr trr feat bpc cn ca
""".split())

# Provider names the catalogues key on, plus the providers the prefix tables
# above name. Exact words of an identifier, or (six letters and more) part of
# one; common English and infrastructure words (``docker``, ``segment``) are left out.
VENDOR_NAMES = frozenset("""
abuseipdb abyssale accuweather adafruit adobe adzuna aeroworkflow agora airbrake airship airtable airvisual aiven
alchemy alconost alegra aletheiaapi algolia alibaba alienvault allsports amadeus ambee amplitude anypoint
apacta api2cart apideck apiflash apifonica apify apilayer apimatic apimetrics apitemplate apollo appcues appfollow
appointedd appsynergy apptivo artifactory artsy asana assemblyai atera atlassian atlasv1 auth0 authress autodesk
autoklose autopilot avaza aviationstack axonaut aylien ayrshare azure bannerbear baremetrics beamer
beebole besnappy besttime betterstack billomat bintray bitbar bitbucket bitcoinaverage bitfinex bitly bitmex bittrex
blazemeter blitapp blocknative blogger bombbomb boostnote borgbase braintree brandfetch browserstack browshot
bscscan buddyns budibase bugherd bugsnag buildkite bulbul bulksms buttercms caflou calendarific calendly
calorieninja campayn capsulecrm captaindata carboninterface cashboard caspio censys centralstationcrm cexio
chartmogul chatfuel checio checklyhq checkout checkvist cicero clarifai clearbit clicksendsms clickup cliengo
clientary clinchpad clockify clockworksms clojars cloudconvert cloudelements cloudflare cloudimage cloudinary
cloudmersive cloudplan cloudsmith cloverly clustdoc codacy codeclimate codecov codemagic codequiry cohere
coinapi coinbase coinlayer coinlib commercejs commodities companyhub confluence confluent contentful conversiontools
convertapi convertkit convier couchbase courier coveralls craftmypdf crowdin cryptocompare
currencycloud currencyfreaks currencylayer currencyscoop currentsapi customerguru customerio d7network dandelion
dareboost databox databricks datadog datagov debounce deepai deepgram deepseek delighted demio deputy
detectify detectlanguage dfuse diffbot diggernaut digitalocean discord disqus dnscheck docparser docsearch
documo docusign dovico dronahq droneci dropbox duffel duosecurity duply dwolla dynalist dyspatch eagleeyenetworks
easyinsight ecostruxureit edamam edenai elasticemail elevenlabs enablex entra etherscan ethplorer etsy eventbrite
everhour exchangerate exchangerates exportsdk extractorapi facebook faceplusplus fastforex fastly feedier fetchrss
figma fileio finage financialmodelingprep findl finicity finnhub fixer fleetbase flickr flightapi flightstats
flowflu formbucket formcraft formio formsite foursquare freshbooks freshdesk freshworks fulcrum fullstory
fxmarket geckoboard gengo geoapify geocod geocode geocodify geoip getgeoapi getgist getresponse getsandbox github
gitlab gitter glassnode gocanvas gocardless godaddy goodday graphcms graphhopper groovehq gtmetrix guardianapi
gumroad gyazo hapikey happyscribe harness hashicorp hasura hellosign helpcrunch helpscout hereapi heroku hiveage
holidayapi honeycomb hostio hubapi hubspot hunter hybiscus hypertrack iconfinder iexapis iexcloud imagekit imagga
infura insightly instabot instamojo intercom interseller intrinio invoiceocean ip2location ipapi ipgeolocation ipifi
ipinfo ipinfodb ipquality ipstack jfrog jira jotform jumpcloud jupiterone kanbantool karmacrm kickbox klipfolio
knapsackpro kontent kraken kucoin kylas ladesk languagelayer larksuite launchdarkly leadfeeder lemlist lemonsqueezy
lendflow lessannoyingcrm lexigram linear linenotify linkedin linkpreview liveagent livestorm loadmill locationiq
loggly loginradius logz lokalise looker loyverse lunchmoney madkudu magicbell mailboxlayer mailchimp mailerlite
mailgun mailjet mailmodo mailsac mandrill mapbox mapquest marketstack mattermost mavenlink maxmind meaningcloud
mediastack meistertask meraki mesibo messagebird metaapi metabase metrilo mindmeister mixmax mixpanel mockaroo
monkeylearn moonclerk moosend moralis mrticktock msal myintervals nasdaq netcore nethunt netlify netsuite
neutrinoapi newrelic newsapi newscatcher newyorktimes nexmo nftport ngrok nicereply nightfall noticeable notion
nozbe nuget numverify nutritionix nvapi nylas nytimes oanda octopus okta omnisend onedesk onelogin
onepagecrm onesignal onfleet oopspam opencagedata openuv openvpn openweather opsgenie optimizely overloop owlbot
packagecloud pagerduty pandadoc pandascore paperform paralleldots parsehub parseur partnerstack pastebin paydirtapp
paymoapp paymongo paypal paystack pdflayer pdfshift peopledatalabs pepipost percy photoroom pinata pipedream
pipedrive pixabay plaid planview planyo plivo podio pollsapi poloniex portainer
positionstack postageapp postmark powrbot privateai prodpad prospectcrm proxycrawl purestake pushbullet pusher
qubole ramp rapidapi reachmail reallysimplesystems rebrandly rentman repairshopr replicate replyio requestfinance
restpack revampcrm ringcentral ritekit roaring rocketreach ronin rootly route4me rownd rubygems runrunit runscope
saladcloud salesblink salescookie salesflare salesforce salesmate sanity satismeter saucelabs scaleway scalr
scrapeowl scraperapi scraperbox scrapestack scrapfly scrapingant scrapingbee screenshotapi screenshotlayer
scrutinizer securitytrails selectpdf semaphoreco sendbird sentry serphouse serpstack sheety sherpadesk shipday
shippo shodan shotstack shutterstock signalwire signaturit signupgenius sigopt simfin simplesat simplynoted simvoly
sinch siteleaf skrapp skybiometry smartsheet smartystreets smooch snipcart snowflake snyk solarwinds sonar
sourcegraph sparkpost splunk spoonacular sportsmonk spotify squarespace sslmate statuscake statuspage statuspal
stitchdata stockdata stormboard stormglass storyblok storychief strava streak stripo stytch sugester sumo supernotes
surveyanyplace surveybot surveysparrow survicate swiftype tallyfy tatum taxjar teamgate teamwork
telegr teletype telnyx testingbot textanywhere textmagic theoddsapi
thinkific thousandeyes ticketmaster tickettailor tiingo timecamp timezoneapi tmetric todoist toggl tokeet tomtom
tradier transferwise travelpayouts travis trello twelvedata twilio twitch twitter tyntec typeform typetalk uclassify
unsplash upcdatabase uplead uploadcare uptimerobot upwave urlscan usercom userflow userstack vagrant vatlayer vbout
vercel verimail veriphone versioneye viewneo virustotal visualcrossing voicegain voodoosms vouchery vpnapi vultr
walkscore wandb weatherbit weatherstack web3 webex webflow webscraper webscraping websitepulse wepay whoxy wistia
worksnaps workstack worldcoinindex worldweather wrike xray yandex youneedabudget yousign youtube zendesk zenkit
zenrows zenscrape zenserp zeplin zerobounce zerotier zipbooks zipcodeapi zipcodebase zonka zulip
openai anthropic claude stripe slack sendgrid shopify huggingface mistral groq togetherai fireworks perplexity
gemini firebase supabase linode hetzner jenkins circleci grafana resend brevo sendinblue pinecone weaviate
qdrant langsmith langfuse planetscale upstash telegram whatsapp instagram adyen klarna binance openrouter
pulumi terraform doppler bitwarden sonarqube dockerhub npmjs pypi aws gcp tencent baidu prefect infracost frameio
posthog razorpay mongodbatlas
""".split())
