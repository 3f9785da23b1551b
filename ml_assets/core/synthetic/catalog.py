"""Curated name lists and statement formats behind the synthetic transaction generator.

Pure data, no logic: `synthetic.py` turns these lists into a merchant catalogue. Merchant
entries are ``"NAME"`` or ``"NAME|ABBREVIATION"``; the abbreviation is what some banks print
instead of the name (``WHOLEFDS MKT``, ``WM SUPERCENTER``).

Statement formats are ``str.format`` templates over these fields:
  merchant: {name} (or its abbreviation), {short} (no spaces, PayPal style), {web}, {phone},
            {hq} (state of the merchant's head office)
  row:      {city} {st} (where the card was used), {store} (3-5 digits), {num} (< 10**6,
            zero-pad it: {num:06d}), {ref} (10 digits), {code} (6 alphanumerics),
            {first} {last} {initial} (a person), {mmdd} {md} (authorisation date),
            {last4} (the account's card)
"""

from __future__ import annotations

# Real US places, so city/state noise looks like a statement and not like "CITY_17".
CITIES: tuple[tuple[str, str], ...] = (
    ("NEW YORK", "NY"), ("BROOKLYN", "NY"), ("LOS ANGELES", "CA"), ("CHICAGO", "IL"),
    ("HOUSTON", "TX"), ("PHOENIX", "AZ"), ("PHILADELPHIA", "PA"), ("SAN ANTONIO", "TX"),
    ("SAN DIEGO", "CA"), ("DALLAS", "TX"), ("AUSTIN", "TX"), ("SAN JOSE", "CA"),
    ("JACKSONVILLE", "FL"), ("FORT WORTH", "TX"), ("COLUMBUS", "OH"), ("CHARLOTTE", "NC"),
    ("INDIANAPOLIS", "IN"), ("SAN FRANCISCO", "CA"), ("SEATTLE", "WA"), ("DENVER", "CO"),
    ("WASHINGTON", "DC"), ("NASHVILLE", "TN"), ("OKLAHOMA CITY", "OK"), ("EL PASO", "TX"),
    ("BOSTON", "MA"), ("PORTLAND", "OR"), ("LAS VEGAS", "NV"), ("DETROIT", "MI"),
    ("MEMPHIS", "TN"), ("LOUISVILLE", "KY"), ("BALTIMORE", "MD"), ("MILWAUKEE", "WI"),
    ("ALBUQUERQUE", "NM"), ("TUCSON", "AZ"), ("FRESNO", "CA"), ("SACRAMENTO", "CA"),
    ("MESA", "AZ"), ("KANSAS CITY", "MO"), ("ATLANTA", "GA"), ("OMAHA", "NE"),
    ("COLORADO SPRGS", "CO"), ("RALEIGH", "NC"), ("MIAMI", "FL"), ("OAKLAND", "CA"),
    ("MINNEAPOLIS", "MN"), ("TULSA", "OK"), ("TAMPA", "FL"), ("ARLINGTON", "TX"),
    ("NEW ORLEANS", "LA"), ("WICHITA", "KS"), ("CLEVELAND", "OH"), ("BAKERSFIELD", "CA"),
    ("AURORA", "CO"), ("ANAHEIM", "CA"), ("HONOLULU", "HI"), ("SANTA ANA", "CA"),
    ("RIVERSIDE", "CA"), ("CORPUS CHRISTI", "TX"), ("LEXINGTON", "KY"), ("PITTSBURGH", "PA"),
    ("ANCHORAGE", "AK"), ("STOCKTON", "CA"), ("CINCINNATI", "OH"), ("ST PAUL", "MN"),
    ("TOLEDO", "OH"), ("NEWARK", "NJ"), ("GREENSBORO", "NC"), ("PLANO", "TX"),
    ("HENDERSON", "NV"), ("LINCOLN", "NE"), ("BUFFALO", "NY"), ("JERSEY CITY", "NJ"),
    ("CHANDLER", "AZ"), ("ST PETERSBURG", "FL"), ("ORLANDO", "FL"), ("DURHAM", "NC"),
    ("MADISON", "WI"), ("LUBBOCK", "TX"), ("SCOTTSDALE", "AZ"), ("RENO", "NV"),
    ("BOISE", "ID"), ("RICHMOND", "VA"), ("BIRMINGHAM", "AL"), ("SPOKANE", "WA"),
    ("DES MOINES", "IA"), ("SALT LAKE CTY", "UT"), ("PROVIDENCE", "RI"), ("HARTFORD", "CT"),
    ("BURLINGTON", "VT"), ("PORTLAND", "ME"), ("CHARLESTON", "SC"), ("SAVANNAH", "GA"),
    ("ANN ARBOR", "MI"), ("BERKELEY", "CA"), ("PALO ALTO", "CA"), ("CAMBRIDGE", "MA"),
    ("BOULDER", "CO"), ("SANTA MONICA", "CA"), ("PASADENA", "CA"), ("HOBOKEN", "NJ"),
    ("EVANSTON", "IL"), ("FT LAUDERDALE", "FL"), ("ALEXANDRIA", "VA"), ("ITHACA", "NY"),
)  # fmt: skip

# Where a purchase in a foreign currency was made: (city, country) by ISO currency code.
FOREIGN_CITIES: dict[str, tuple[tuple[str, str], ...]] = {
    "EUR": (("PARIS", "FR"), ("BERLIN", "DE"), ("MADRID", "ES"), ("ROME", "IT"), ("AMSTERDAM", "NL"),
            ("DUBLIN", "IE"), ("LISBON", "PT"), ("VIENNA", "AT"), ("BARCELONA", "ES"), ("MUNICH", "DE")),
    "GBP": (("LONDON", "GB"), ("MANCHESTER", "GB"), ("EDINBURGH", "GB"), ("BRISTOL", "GB")),
    "CAD": (("TORONTO", "ON"), ("VANCOUVER", "BC"), ("MONTREAL", "QC"), ("CALGARY", "AB")),
}  # fmt: skip

FIRST_NAMES: tuple[str, ...] = (
    "JAMES", "MARY", "JOHN", "PATRICIA", "ROBERT", "JENNIFER", "MICHAEL", "LINDA", "DAVID",
    "ELIZABETH", "WILLIAM", "BARBARA", "RICHARD", "SUSAN", "JOSEPH", "JESSICA", "THOMAS",
    "SARAH", "CHRIS", "KAREN", "DANIEL", "LISA", "MATTHEW", "NANCY", "ANTHONY", "BETTY",
    "MARK", "SANDRA", "STEVEN", "ASHLEY", "ANDREW", "EMILY", "KEVIN", "MICHELLE", "BRIAN",
    "AMANDA", "JOSE", "MELISSA", "CARLOS", "MARIA", "WEI", "PRIYA", "AHMED", "FATIMA",
    "HIROSHI", "MEI", "OLUWASEUN", "SOFIA", "DIEGO", "NGUYEN",
)  # fmt: skip
LAST_NAMES: tuple[str, ...] = (
    "SMITH", "JOHNSON", "WILLIAMS", "BROWN", "JONES", "GARCIA", "MILLER", "DAVIS",
    "RODRIGUEZ", "MARTINEZ", "HERNANDEZ", "LOPEZ", "GONZALEZ", "WILSON", "ANDERSON",
    "THOMAS", "TAYLOR", "MOORE", "JACKSON", "MARTIN", "LEE", "PEREZ", "THOMPSON", "WHITE",
    "HARRIS", "SANCHEZ", "CLARK", "RAMIREZ", "LEWIS", "ROBINSON", "WALKER", "YOUNG", "ALLEN",
    "KING", "WRIGHT", "SCOTT", "TORRES", "NGUYEN", "HILL", "FLORES", "GREEN", "ADAMS",
    "NELSON", "BAKER", "HALL", "RIVERA", "CAMPBELL", "MITCHELL", "CARTER", "ROBERTS", "CHEN",
    "WANG", "PATEL", "KIM", "SINGH", "OKAFOR", "COHEN", "MURPHY", "OBRIEN", "KOWALSKI",
    "TANAKA", "ROSSI", "MULLER", "IVANOV", "SILVA", "HUANG",
)  # fmt: skip

# Chains and well-known payees by category, then by channel (how they are usually paid).
CHAINS: dict[str, dict[str, tuple[str, ...]]] = {
    "groceries": {
        "store": (
            "WHOLE FOODS MARKET|WHOLEFDS MKT", "TRADER JOE'S|TRADER JOE S", "SAFEWAY", "KROGER",
            "COSTCO WHOLESALE|COSTCO WHSE", "PUBLIX|PUBLIX SUPER MAR", "ALDI", "H-E-B|HEB",
            "WEGMANS", "SPROUTS FARMERS MARKET|SPROUTS FARMERS MA", "SAM'S CLUB|SAMSCLUB",
            "FOOD LION", "GIANT EAGLE", "STOP & SHOP|STOP&SHOP", "MEIJER", "HY-VEE", "WINCO FOODS",
            "RALPHS", "ALBERTSONS", "VONS", "FRED MEYER", "HARRIS TEETER", "SHOPRITE",
            "WINN-DIXIE|WINN DIXIE", "LIDL", "FOOD 4 LESS", "SMART & FINAL|SMART AND FINAL",
            "GROCERY OUTLET", "PIGGLY WIGGLY", "STATER BROS", "MARKET BASKET", "NATURAL GROCERS",
            "THE FRESH MARKET", "JEWEL-OSCO|JEWEL OSCO", "KING SOOPERS", "99 RANCH MARKET",
            "H MART", "7-ELEVEN|7-ELEVEN INC",
        ),
        "online": ("INSTACART", "AMAZON FRESH|AMZN FRESH", "GOPUFF", "THRIVE MARKET"),
    },
    "restaurants": {
        "store": (
            "CHIPOTLE|CHIPOTLE MEX GR", "MCDONALD'S|MCDONALDS F", "SUBWAY", "TACO BELL", "WENDYS",
            "BURGER KING", "CHICK-FIL-A", "PANERA BREAD", "SHAKE SHACK", "IN-N-OUT BURGER|IN N OUT",
            "FIVE GUYS", "DOMINO'S|DOMINOS", "PIZZA HUT", "PAPA JOHN'S|PAPA JOHNS", "OLIVE GARDEN",
            "APPLEBEE'S|APPLEBEES", "CHILI'S|CHILIS", "PANDA EXPRESS", "SWEETGREEN", "CAVA",
            "POPEYES", "KFC", "JERSEY MIKE'S|JERSEY MIKES", "JIMMY JOHN'S|JIMMY JOHNS", "WINGSTOP",
            "RED ROBIN", "CHEESECAKE FACTORY|CHEESECAKE FACT", "BUFFALO WILD WINGS|BWW",
            "SONIC DRIVE-IN|SONIC DRIVE IN", "ARBY'S|ARBYS", "QDOBA", "NOODLES & CO",
            "P.F. CHANG'S|PF CHANGS", "IHOP", "DENNY'S|DENNYS", "CRACKER BARREL", "WAFFLE HOUSE",
        ),
        "online": ("DOORDASH", "UBER EATS", "GRUBHUB", "SEAMLESS", "CAVIAR"),
    },
    "coffee": {
        "store": (
            "STARBUCKS", "DUNKIN", "PEET'S COFFEE|PEETS", "TIM HORTONS", "CARIBOU COFFEE",
            "DUTCH BROS", "COFFEE BEAN & TEA LEAF|COFFEE BEAN", "SCOOTER'S COFFEE", "BIGGBY COFFEE",
        ),
        "local_food": (
            "BLUE BOTTLE COFFEE", "PHILZ COFFEE", "INTELLIGENTSIA", "STUMPTOWN COFFEE",
            "LA COLOMBE", "VERVE COFFEE", "SIGHTGLASS COFFEE", "RITUAL COFFEE", "JOE COFFEE",
            "COUNTER CULTURE",
        ),
    },
    "fuel": {
        "store": (
            "SHELL OIL", "CHEVRON", "EXXONMOBIL|EXXON", "BP", "MOBIL", "ARCO", "SUNOCO", "CITGO",
            "VALERO", "SPEEDWAY", "76", "MARATHON PETRO", "PHILLIPS 66", "CIRCLE K", "WAWA",
            "SHEETZ", "QUIKTRIP|QT", "CASEY'S|CASEYS", "RACETRAC", "KWIK TRIP", "COSTCO GAS",
            "LOVE'S TRAVEL STOP|LOVES", "PILOT", "BUC-EE'S|BUC EES",
        ),
    },
    "transport": {
        "online": (
            "UBER", "LYFT", "LIME", "CITI BIKE", "ZIPCAR", "PARKMOBILE", "SPOTHERO", "PARKWHIZ",
            "E-ZPASS|EZPASS", "FASTRAK", "SUNPASS",
        ),
        "store": (
            "MTA NYC TRANSIT|MTA*NYCT PAYGO", "CLIPPER SYSTEMS|CLIPPER", "BART", "VENTRA", "SEPTA",
            "WMATA", "LAZ PARKING", "SP+ PARKING", "JIFFY LUBE", "AUTOZONE",
            "O'REILLY AUTO PARTS|OREILLY AUTO", "FIRESTONE",
        ),
    },
    "travel": {
        "online": (
            "DELTA AIR LINES|DELTA AIR", "UNITED AIRLINES|UNITED", "AMERICAN AIRLINES|AMERICAN AIR",
            "SOUTHWEST AIRLINES|SOUTHWES", "JETBLUE AIRWAYS|JETBLUE", "ALASKA AIRLINES",
            "SPIRIT AIRLINES", "FRONTIER AIRLINES", "AIRBNB", "VRBO", "EXPEDIA", "BOOKING.COM",
            "HOTELS.COM", "PRICELINE", "AMTRAK", "GREYHOUND", "TSA PRECHECK",
        ),
        "store": (
            "MARRIOTT", "HILTON", "HYATT", "HOLIDAY INN", "BEST WESTERN", "HAMPTON INN",
            "HERTZ", "ENTERPRISE RENT-A-CAR|ENTERPRISE RENT", "AVIS", "BUDGET RENT A CAR",
            "NATIONAL CAR RENTAL", "HUDSON NEWS",
        ),
    },
    "housing": {
        "bill": (
            "AVALONBAY", "EQUITY RESIDENTIAL", "GREYSTAR", "CAMDEN PROPERTY", "ESSEX PROPERTY",
            "ROCKET MORTGAGE", "MR. COOPER|MR COOPER", "WELLS FARGO HOME MTG|WF HOME MTG",
            "CHASE MORTGAGE", "STATE FARM", "LEMONADE INSURANCE|LEMONADE INS", "ALLSTATE",
        ),
    },
    "utilities": {
        "bill": (
            "PG&E", "COMCAST", "CON EDISON|CONED", "DUKE ENERGY", "SOUTHERN CALIFORNIA EDISON|SO CAL EDISON",
            "SPECTRUM", "AT&T", "VERIZON WIRELESS|VZWRLSS", "T-MOBILE", "COX COMMUNICATIONS|COX COMM",
            "DOMINION ENERGY", "NATIONAL GRID", "XCEL ENERGY", "GEORGIA POWER", "FPL",
            "DTE ENERGY", "CENTERPOINT ENERGY", "PSEG", "EVERSOURCE", "AMERICAN WATER",
            "GOOGLE FI", "MINT MOBILE", "FRONTIER COMMUNICATIONS|FRONTIER COMM", "CENTURYLINK",
            "WASTE MANAGEMENT|WM EZPAY", "REPUBLIC SERVICES", "CITY OF AUSTIN UTILITIES",
            "SEATTLE CITY LIGHT", "LADWP",
        ),
    },
    "subscriptions": {
        "bill": (
            "NETFLIX.COM", "SPOTIFY USA", "APPLE.COM/BILL", "AMAZON PRIME", "HULU", "DISNEY PLUS",
            "HBO MAX", "GOOGLE YOUTUBE PREMIUM", "PARAMOUNT+|PARAMOUNT PLUS", "PEACOCK", "AUDIBLE",
            "ADOBE", "MICROSOFT 365|MSFT", "DROPBOX", "NEW YORK TIMES|NYTIMES", "WSJ DIGITAL",
            "OPENAI CHATGPT|OPENAI", "GITHUB", "NOTION LABS", "CALM", "HEADSPACE", "DUOLINGO",
            "PATREON", "SIRIUSXM", "YOUTUBE TV", "CHEGG", "LINKEDIN PREMIUM", "XBOX GAME PASS",
            "PLAYSTATION PLUS", "NINTENDO ONLINE", "EXPRESSVPN", "NORDVPN", "GRAMMARLY", "CANVA",
            "ZOOM.US", "PELOTON",
        ),
    },
    "shopping": {
        "online": (
            "AMAZON", "ETSY", "EBAY", "WAYFAIR", "SHEIN", "TEMU", "CHEWY", "ZAPPOS", "STEAMGAMES.COM",
            "BEST BUY ONLINE|BESTBUY.COM", "NIKE.COM", "ALIEXPRESS",
        ),
        "store": (
            "TARGET", "WALMART SUPERCENTER", "THE HOME DEPOT|HOMEDEPOT", "LOWE'S|LOWES",
            "BEST BUY|BESTBUY", "IKEA", "MACY'S|MACYS", "NORDSTROM", "KOHL'S|KOHLS",
            "TJ MAXX|TJMAXX", "MARSHALLS", "ROSS STORES", "OLD NAVY", "GAP", "H&M", "ZARA",
            "UNIQLO", "NIKE", "ADIDAS", "FOOT LOCKER", "DICK'S SPORTING GOODS|DICKS SPORTING",
            "REI", "APPLE STORE", "SEPHORA", "ULTA BEAUTY|ULTA", "PETCO", "PETSMART", "STAPLES",
            "OFFICE DEPOT", "MICHAELS", "JOANN", "HOBBY LOBBY", "DOLLAR TREE", "DOLLAR GENERAL|DOLLAR GENERAL #",
            "FAMILY DOLLAR", "FIVE BELOW", "BARNES & NOBLE|BARNES&NOBLE", "GAMESTOP", "ACE HARDWARE",
            "BATH & BODY WORKS|BATH&BODYWORKS", "URBAN OUTFITTERS", "ANTHROPOLOGIE", "J.CREW|JCREW",
            "BANANA REPUBLIC", "WILLIAMS-SONOMA|WILLIAMS SONOMA", "CRATE & BARREL", "POTTERY BARN",
            "BURLINGTON", "TRADER HORN", "LULULEMON",
        ),
    },
    "health": {
        "store": (
            "CVS PHARMACY|CVS/PHARMACY", "WALGREENS", "RITE AID", "MINUTECLINIC", "LENSCRAFTERS",
            "WARBY PARKER", "GNC", "VITAMIN SHOPPE", "LABCORP", "QUEST DIAGNOSTICS",
            "ASPEN DENTAL", "CITYMD", "AFC URGENT CARE",
        ),
        "bill": (
            "KAISER PERMANENTE|KAISER", "ONE MEDICAL", "PLANET FITNESS", "EQUINOX",
            "24 HOUR FITNESS", "LA FITNESS", "ANYTIME FITNESS", "ORANGETHEORY", "DELTA DENTAL",
        ),
        "online": ("HIMS & HERS|HIMS", "GOODRX", "CAPSULE PHARMACY", "TELADOC", "1-800 CONTACTS"),
    },
    "entertainment": {
        "store": (
            "AMC THEATRES|AMC", "REGAL CINEMAS|REGAL", "CINEMARK", "TOPGOLF",
            "DAVE & BUSTER'S|DAVE&BUSTERS", "BOWLERO", "ROUND1", "SIX FLAGS", "DISNEYLAND",
            "UNIVERSAL STUDIOS", "ALAMO DRAFTHOUSE", "MAIN EVENT", "CHUCK E. CHEESE",
        ),
        "online": (
            "TICKETMASTER", "LIVE NATION", "STUBHUB", "EVENTBRITE", "FANDANGO", "SEATGEEK",
            "PLAYSTATION NETWORK|PLAYSTATION NTWK", "NINTENDO ESHOP", "XBOX STORE", "ROBLOX",
        ),
    },
    "income": {
        "deposit": ("IRS TREAS 310", "SSA TREAS 310", "INTEREST PAYMENT", "CASHBACK REWARD", "EDD UI BENEFITS"),
    },
    "transfers": {
        "p2p": (
            "ZELLE", "VENMO", "CASH APP", "PAYPAL", "APPLE CASH", "ONLINE TRANSFER", "WIRE TRANSFER",
            "CHASE CREDIT CRD", "AMEX EPAYMENT", "CAPITAL ONE", "DISCOVER", "CITI CARD",
            "ROBINHOOD", "COINBASE", "FIDELITY", "VANGUARD", "SCHWAB",
        ),
    },
    "fees": {
        "fee": (
            "MONTHLY SERVICE FEE", "OVERDRAFT FEE", "FOREIGN TRANSACTION FEE|FOREIGN TXN FEE",
            "OUT-OF-NETWORK ATM FEE|NON-NETWORK ATM FEE", "WIRE TRANSFER FEE", "RETURNED ITEM FEE",
            "PAPER STATEMENT FEE", "LATE PAYMENT FEE", "STOP PAYMENT FEE", "INSUFFICIENT FUNDS FEE|NSF FEE",
        ),
    },
    "cash": {
        "atm": (
            "CHASE", "WELLS FARGO", "BANK OF AMERICA|BKOFAMERICA", "CITIBANK", "US BANK", "PNC",
            "TD BANK", "ALLPOINT", "CARDTRONICS", "MONEYPASS", "CO-OP NETWORK", "7-ELEVEN ATM",
        ),
    },
}  # fmt: skip

# Words for independent local merchants ("JOE'S PIZZA", "MAPLE STREET DENTAL").
OWNERS: tuple[str, ...] = (
    "JOE'S", "MAMA'S", "TONY'S", "ROSA'S", "SAM'S", "LUCKY", "GOLDEN", "BLUE DOOR", "RED HEN",
    "LITTLE ITALY", "EL FAROLITO", "GOLDEN DRAGON", "NONNA'S", "SILVER SPOON", "BIG SUR",
    "HAPPY", "OLD TOWN", "URBAN", "NORTH STAR", "SUNRISE", "LOTUS", "SAKURA", "CASA", "BELLA",
    "THE CORNER", "GRANDMA'S", "KING'S", "THREE SISTERS", "FIREFLY", "COPPER POT",
)  # fmt: skip
PLACES: tuple[str, ...] = (
    "MAPLE STREET", "OAK PARK", "RIVERSIDE", "HILLTOP", "MAIN STREET", "HARBOR", "SUNSET",
    "LAKESIDE", "PINE RIDGE", "CEDAR", "WILLOW CREEK", "BAYVIEW", "MILL CREEK", "PARKSIDE",
    "UNION SQUARE", "HIGHLAND", "GREENWOOD", "BROADWAY", "ELM STREET", "CANAL STREET",
    "WESTSIDE", "EASTGATE", "FAIRVIEW", "SUMMIT", "VALLEY",
)  # fmt: skip
EMPLOYERS: tuple[str, ...] = (
    "ACME", "GLOBEX", "INITECH", "UMBRELLA", "HOOLI", "PIED PIPER", "NORTHWIND", "CONTOSO",
    "FABRIKAM", "WAYNE", "STARK", "TYRELL", "CYBERDYNE", "SOYLENT", "VANDELAY", "MASSIVE DYNAMIC",
    "BLUTH", "DUNDER MIFFLIN", "WONKA", "OSCORP", "VEHEMENT", "ABSTERGO", "ROSSUM", "NAKATOMI",
    "SPACELY", "MONARCH", "ORBITAL", "HELIX", "BRIGHTLINE", "EVERGREEN",
)  # fmt: skip

# category -> (channel, how many to generate, first words, second words)
LOCAL_MERCHANTS: dict[str, tuple[str, int, tuple[str, ...], tuple[str, ...]]] = {
    "restaurants": ("local_food", 70, OWNERS, (
        "PIZZA", "BISTRO", "TAQUERIA", "GRILL", "KITCHEN", "DINER", "SUSHI BAR", "THAI CUISINE",
        "NOODLE HOUSE", "BBQ", "BURGERS", "DELI", "TAVERN", "RAMEN", "CANTINA", "TRATTORIA", "PUB",
    )),
    "coffee": ("local_food", 25, OWNERS + PLACES, (
        "COFFEE", "ROASTERS", "ESPRESSO BAR", "CAFE", "COFFEE HOUSE", "BAKERY & CAFE", "TEA HOUSE",
    )),
    "groceries": ("local", 25, OWNERS + PLACES, (
        "MARKET", "FOOD MART", "FARMERS MARKET", "GROCERY", "PRODUCE", "BUTCHER SHOP", "CO-OP",
    )),
    "shopping": ("local", 40, OWNERS + PLACES, (
        "BOUTIQUE", "HARDWARE", "BOOKS", "FLORIST", "GIFT SHOP", "OUTFITTERS", "PET SUPPLY",
        "THRIFT", "JEWELERS", "CYCLES", "TOY STORE", "RECORDS",
    )),
    "health": ("local", 30, PLACES, (
        "DENTAL", "FAMILY MEDICINE", "PEDIATRICS", "CHIROPRACTIC", "PHYSICAL THERAPY",
        "VISION CENTER", "URGENT CARE", "PHARMACY", "DERMATOLOGY", "YOGA STUDIO",
    )),
    "entertainment": ("local", 20, OWNERS + PLACES, (
        "CINEMA", "LANES", "ARCADE", "THEATRE", "COMEDY CLUB", "ESCAPE ROOM", "MINI GOLF", "KARAOKE",
    )),
    "fuel": ("local", 10, PLACES, ("GAS", "FUEL STOP", "SERVICE STATION", "GAS & GO")),
    "transport": ("local", 10, PLACES, ("PARKING", "CAB CO", "AUTO REPAIR", "CAR WASH", "TOWING")),
    "travel": ("local", 15, PLACES, ("INN", "MOTEL", "SUITES", "LODGE", "B&B")),
    "housing": ("bill", 15, PLACES, ("APARTMENTS", "PROPERTY MGMT", "HOA", "RESIDENCES")),
    "income": ("payroll", 30, EMPLOYERS, ("CORP", "INC", "LLC", "CO", "HOLDINGS", "GROUP", "TECHNOLOGIES")),
}  # fmt: skip

# Default amount range (absolute, in currency units) per category.
AMOUNT_RANGES: dict[str, tuple[float, float]] = {
    "groceries": (15.0, 250.0), "restaurants": (8.0, 120.0), "coffee": (3.0, 9.0),
    "fuel": (20.0, 90.0), "transport": (3.0, 80.0), "travel": (60.0, 1200.0),
    "housing": (900.0, 3500.0), "utilities": (40.0, 400.0), "subscriptions": (5.0, 25.0),
    "shopping": (5.0, 400.0), "health": (10.0, 300.0), "entertainment": (8.0, 150.0),
    "income": (1500.0, 6000.0), "transfers": (10.0, 1500.0), "fees": (1.0, 35.0),
    "cash": (20.0, 200.0),
}  # fmt: skip
# Merchant-specific ranges; equal bounds mean a fixed price (subscriptions, bank fees).
PRICES: dict[str, tuple[float, float]] = {
    "NETFLIX.COM": (15.49, 15.49), "SPOTIFY USA": (11.99, 11.99), "APPLE.COM/BILL": (0.99, 19.99),
    "AMAZON PRIME": (14.99, 14.99), "HULU": (7.99, 7.99), "DISNEY PLUS": (13.99, 13.99),
    "HBO MAX": (15.99, 15.99), "GOOGLE YOUTUBE PREMIUM": (13.99, 13.99), "PARAMOUNT+": (7.99, 7.99),
    "PEACOCK": (7.99, 7.99), "AUDIBLE": (14.95, 14.95), "ADOBE": (22.99, 22.99),
    "MICROSOFT 365": (9.99, 9.99), "DROPBOX": (11.99, 11.99), "NEW YORK TIMES": (4.00, 4.00),
    "OPENAI CHATGPT": (20.00, 20.00), "GITHUB": (4.00, 4.00), "YOUTUBE TV": (72.99, 72.99),
    "PELOTON": (44.00, 44.00), "PLANET FITNESS": (10.00, 24.99), "EQUINOX": (235.00, 235.00),
    "24 HOUR FITNESS": (39.99, 39.99), "LA FITNESS": (34.99, 34.99), "ORANGETHEORY": (59.00, 169.00),
    "STATE FARM": (18.50, 140.00), "LEMONADE INSURANCE": (9.00, 25.00), "ALLSTATE": (60.00, 180.00),
    "MINT MOBILE": (15.00, 30.00), "MTA NYC TRANSIT": (2.90, 2.90), "CLIPPER SYSTEMS": (2.50, 40.00),
    "MONTHLY SERVICE FEE": (12.00, 12.00), "OVERDRAFT FEE": (34.00, 34.00),
    "FOREIGN TRANSACTION FEE": (0.45, 9.00), "OUT-OF-NETWORK ATM FEE": (3.00, 3.50),
    "WIRE TRANSFER FEE": (25.00, 25.00), "RETURNED ITEM FEE": (34.00, 34.00),
    "PAPER STATEMENT FEE": (2.00, 2.00), "LATE PAYMENT FEE": (29.00, 29.00),
    "STOP PAYMENT FEE": (30.00, 30.00), "INSUFFICIENT FUNDS FEE": (35.00, 35.00),
    "IRS TREAS 310": (150.0, 3500.0), "SSA TREAS 310": (900.0, 2800.0),
    "INTEREST PAYMENT": (0.01, 25.0), "CASHBACK REWARD": (1.0, 60.0), "EDD UI BENEFITS": (200.0, 900.0),
    "CHASE CREDIT CRD": (50.0, 3000.0), "AMEX EPAYMENT": (50.0, 3000.0),
    "CAPITAL ONE": (25.0, 2000.0), "DISCOVER": (25.0, 2000.0), "CITI CARD": (25.0, 2000.0),
}  # fmt: skip

# Statement formats per channel; a repeated format is simply more frequent.
FORMATS: dict[str, tuple[str, ...]] = {
    "store": (
        "{name} #{store} {city} {st}", "{name} #{store} {city} {st}", "{name} {store} {city} {st}",
        "POS DEBIT {name} {store} {city} {st}", "DEBIT CARD PURCHASE {name} {city} {st}",
        "CHECKCARD {mmdd} {name} {city} {st}", "{name} {city} {st}",
        "PURCHASE AUTHORIZED ON {md} {name} {city} {st} S{ref} CARD {last4}",
    ),
    "local": (
        "SQ *{name} {city} {st}", "SQ *{name} {city} {st}", "{name} {city} {st}",
        "POS DEBIT {name} {city} {st}", "CHECKCARD {mmdd} {name} {city} {st}", "SQ *{name}",
        "PURCHASE AUTHORIZED ON {md} {name} {city} {st} S{ref} CARD {last4}",
    ),
    "local_food": (
        "TST* {name} {city} {st}", "TST* {name} {city} {st}", "TST*{name}",
        "SQ *{name} {city} {st}", "SQ *{name}", "{name} {city} {st}",
        "POS DEBIT {name} {city} {st}", "CHECKCARD {mmdd} {name} {city} {st}",
    ),
    "online": (
        "{name} {phone} {hq}", "{web} {hq}", "{name}*{code} {web}", "{name} {web} {hq}",
        "PAYPAL *{short} 402-935-7733 CA", "ONLINE PURCHASE {name} {web}",
    ),
    "bill": (
        "ACH DEBIT {name} {phone}", "{name} WEB ONLINE {ref}", "{name} AUTOPAY {num:06d}",
        "{name} DES:BILL PAY ID:{ref} INDN:{last} {first} WEB", "ELECTRONIC PMT {name} {ref}",
        "{name} {phone} {hq}", "RECURRING PMT {name} {phone}",
    ),
    "fee": ("{name}", "{name}", "{name} {md}", "{name} REF {num:06d}"),
    "atm": (
        "ATM WITHDRAWAL #{num:06d} {city} {st}", "ATM WITHDRAWAL #{num:06d} {city} {st}",
        "ATM CASH WITHDRAWAL {name} {city} {st}", "{name} ATM #{store} {city} {st}",
        "ATM W/D {md} {num:06d} {city} {st}", "WITHDRAWAL {name} ATM {city} {st} CARD {last4}",
    ),
    "payroll": (
        "PAYROLL {name} DIRECT DEP", "{name} DES:PAYROLL ID:{ref} INDN:{last} {first} PPD",
        "DIRECT DEP {name} PAYROLL", "{name} PAYROLL PPD ID: {ref}",
        "ACH CREDIT {name} PAYROLL {num:06d}", "{name} DIR DEP {md}",
    ),
    "deposit": ("{name}", "{name} {md}"),
    "p2p": ("{name} {ref}", "{name} PMT {ref}", "{name} ONLINE PMT {num:06d}", "{name} DES:PAYMENT ID:{ref} WEB"),
}  # fmt: skip
REFUND_FORMATS: dict[str, tuple[str, ...]] = {
    "store": (
        "REFUND {name} {num:08d}", "RETURN {name} {city} {st}", "{name} REFUND {city} {st}",
        "PURCHASE RETURN {name} #{store} {city} {st}", "CREDIT VOUCHER {name} {mmdd}",
    ),
    "online": ("REFUND {web} {num:08d}", "{name} REFUND {phone} {hq}", "RETURN {name}*{code}"),
}  # fmt: skip
REFUND_FORMATS["local"] = REFUND_FORMATS["local_food"] = REFUND_FORMATS["store"]

# Payees whose statement lines do not follow their channel's formats (but keep its type:
# a store's special formats are all card-present purchases).
SPECIAL_FORMATS: dict[str, tuple[str, ...]] = {
    "AMAZON": ("AMZN MKTP US*{code} SEATTLE WA", "AMZN MKTP US*{code}", "AMAZON.COM*{code} AMZN.COM/BILL WA", "AMAZON MKTPL*{code}"),
    "AMAZON PRIME": ("AMAZON PRIME*{code} AMZN.COM/BILL WA", "AMZN PRIME*{code}", "PRIME VIDEO*{code}"),
    "UBER": ("UBER *TRIP HELP.UBER.COM CA", "UBER *TRIP {code} SAN FRANCISCO CA", "UBER TRIP {code} HELP.UBER.COM"),
    "UBER EATS": ("UBER *EATS HELP.UBER.COM CA", "UBER EATS {code} SAN FRANCISCO CA"),
    "LYFT": ("LYFT *RIDE {code} LYFT.COM CA", "LYFT   *RIDE {mmdd}", "LYFT *{num:06d} SAN FRANCISCO CA"),
    "DOORDASH": ("DOORDASH*{code} WWW.DOORDASH. CA", "DD *DOORDASH {code} 855-973-1040 CA"),
    "NETFLIX.COM": ("ACH DEBIT NETFLIX.COM 866-579-7172", "NETFLIX.COM 866-579-7172 CA", "NETFLIX.COM LOS GATOS CA"),
    "SPOTIFY USA": ("SPOTIFY USA 877-778-1161 NY", "SPOTIFY P{code} STOCKHOLM", "ACH DEBIT SPOTIFY USA 877-778-1161"),
    "APPLE.COM/BILL": ("APPLE.COM/BILL 866-712-7753 CA", "APPLE.COM/BILL ITUNES.COM CA"),
    "GOOGLE YOUTUBE PREMIUM": ("GOOGLE *YOUTUBEPREMIUM G.CO/HELPPAY#CA", "GOOGLE *YOUTUBE {code}"),
    "PG&E": ("PG&E WEB ONLINE {ref}", "PGANDE WEB ONLINE {ref}", "PG&E DES:WEB ONLINE ID:{ref} INDN:{last} {first}"),
    "COMCAST": ("COMCAST CABLE COMM 800-266-2278 PA", "COMCAST XFINITY {ref}", "ACH DEBIT COMCAST 800-266-2278"),
    "TARGET": ("TARGET T-{store} {city} {st}", "TARGET {store:08d} {city} {st}", "POS DEBIT TARGET T-{store} {city} {st}"),
    "WALMART SUPERCENTER": ("WM SUPERCENTER #{store} {city} {st}", "WAL-MART #{store} {city} {st}", "POS DEBIT WAL-MART SUPER CENTER {store} {city} {st}"),
    "STARBUCKS": ("STARBUCKS STORE {store} {city} {st}", "STARBUCKS #{store} {city} {st}"),
    "ZELLE": ("ZELLE TO {initial} {last}", "ZELLE PAYMENT TO {first} {last} {code}", "ZELLE TO {first} {last} ON {md} REF # {ref}"),
    "VENMO": ("VENMO PAYMENT {ref}", "VENMO *{first} {last}", "VENMO DES:PAYMENT ID:{ref} INDN:{last} {first}"),
    "CASH APP": ("CASH APP*{first} {initial} 877-417-4551 CA", "SQUARE CASH APP {first} {last}"),
    "PAYPAL": ("PAYPAL INST XFER {ref} WEB ID: PAYPALSI77", "PAYPAL *{first}{last} 402-935-7733 CA"),
    "APPLE CASH": ("APPLE CASH SENT MONEY 1 INFINITE LOOP CA", "APPLE CASH {ref}"),
    "ONLINE TRANSFER": ("ONLINE TRANSFER TO SAV XXXXXX{last4} REF #{code}", "ONLINE TRANSFER TO CHK ...{last4} TRANSACTION#: {ref}"),
    "WIRE TRANSFER": ("WIRE TRANSFER OUT {ref} TO {first} {last}", "OUTGOING WIRE TRANSFER REF {ref}"),
    "CHASE CREDIT CRD": ("CHASE CREDIT CRD AUTOPAY {ref}", "CHASE CREDIT CRD EPAY {ref}"),
    "AMEX EPAYMENT": ("AMEX EPAYMENT ACH PMT {code}", "AMERICAN EXPRESS ACH PMT {ref}"),
    "IRS TREAS 310": ("IRS TREAS 310 TAX REF", "IRS TREAS 310 DES:TAX REF ID:{ref}"),
    "SSA TREAS 310": ("SSA TREAS 310 XXSOC SEC", "SSA TREAS 310 DES:XXSOC SEC ID:{ref}"),
    "INTEREST PAYMENT": ("INTEREST PAYMENT", "INTEREST PAID", "INTEREST EARNED {md}"),
}  # fmt: skip
# Money coming in through a transfer payee; without an entry a payee only sends money.
CREDIT_FORMATS: dict[str, tuple[str, ...]] = {
    "ZELLE": ("ZELLE FROM {initial} {last}", "ZELLE PAYMENT FROM {first} {last} {code}"),
    "VENMO": ("VENMO CASHOUT {ref}", "VENMO DES:CASHOUT ID:{ref} INDN:{last} {first}"),
    "CASH APP": ("CASH APP CASH OUT {ref}", "SQUARE INC CASH APP {ref}"),
    "PAYPAL": ("PAYPAL TRANSFER {ref} PPD ID: PAYPALSD11",),
    "APPLE CASH": ("APPLE CASH TRANSFER {ref}",),
    "ONLINE TRANSFER": ("ONLINE TRANSFER FROM SAV XXXXXX{last4} REF #{code}",),
    "WIRE TRANSFER": ("INCOMING WIRE TRF {ref} FROM {first} {last}", "WIRE TRANSFER IN {ref}"),
    "ROBINHOOD": ("ROBINHOOD DES:CREDITS ID:{ref}",),
    "COINBASE": ("COINBASE INC DES:COINBASE ID:{ref}",),
}  # fmt: skip
