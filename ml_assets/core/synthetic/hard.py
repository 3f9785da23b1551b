"""Seeded bank transactions that are hard to categorize: a benchmark the model recipe was not
tuned on.

`generate_hard_transactions` returns the columns, dtypes and label vocabularies of
`synthetic.generate_transactions` (see `ingest.RAW_SCHEMA`) plus a String column ``style``.
Where that generator draws from a few hundred US payees, this one is hard where real
statements are hard:

- a long tail: about 14,000 merchants composed from words of thirteen languages (Latin with
  diacritics, Cyrillic, Greek, Japanese, Chinese, Arabic) in eighteen countries and twelve
  currencies; within a category popularity falls as rank**-ZIPF_EXPONENT, so a few chains
  are frequent and most merchants appear once or twice, with few labels each;
- STYLES, the ways different banks print the same payment::

    us_card        POS DEBIT SUMUP *ZLOTA RACZKA DE TORUN PL
    eu_sepa        Pagamento POS ZŁOTA RĄCZKA DELIKATESY TORUŃ PL 24.02.2026 Terminal 3064
    uk_faster      ZLOTA RACZKA DELIK      TORUN ON 24 FEB POS
    mobile_wallet  Złota Rączka Delikatesy (Apple Pay)
    aggregator     SUMUP *ZLOTARACZKADE TORUN PL

  with card-network truncation (the acceptor field holds 22-25 characters), payment
  processor prefixes, store, terminal and reference numbers, dates, city and country codes,
  foreign-currency amounts and names printed in their own script or romanized;
- label noise: a ``label_noise`` share of the labeled rows carries a plausible wrong category
  (groceries for restaurants, transport for fuel); ``transaction_type`` is never flipped.

An account is held at one bank, so all its rows share one style; ``styles`` restricts the
styles the accounts draw from, for a bank-style shift (train on some styles, test on another).
The style is drawn after the payments, so one seed gives the same payments (merchants,
amounts, dates, labels) whatever the styles: use different seeds for the two sides of a split.

Only ``numpy.random.default_rng`` draws randomness (no global state, no ``hash()``), so the
same arguments give an identical frame on every machine and Python version.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import polars as pl

from ml_assets.core.synthetic import demo as base
from ml_assets.core.synthetic.catalog import AMOUNT_RANGES

CATEGORIES = base.CATEGORIES
TRANSACTION_TYPES = base.TRANSACTION_TYPES
STYLES: tuple[str, ...] = ("us_card", "eu_sepa", "uk_faster", "mobile_wallet", "aggregator")

# Generation knobs; each *_SHARE is a fraction of the rows its comment names.
ZIPF_EXPONENT = 1.1  # merchant popularity within a category falls as rank**-1.1
LABEL_NOISE = 0.03  # default share of labeled rows whose category is wrong
AMAZON_SHARE = 0.3  # of aggregator rows for online shops: sold through Amazon's marketplace
GARBLE_SHARE = 0.05  # of us_card rows: the network replaced every non-ASCII letter with "?"
# Of the rows a style prints, the share showing the merchant's own script (else romanized,
# diacritics folded) and the share in upper case.
NATIVE_SHARE = {"us_card": 0.3, "eu_sepa": 0.5, "uk_faster": 0.3, "mobile_wallet": 0.8,
                "aggregator": 0.2}  # fmt: skip
UPPER_SHARE = {"us_card": 1.0, "eu_sepa": 0.4, "uk_faster": 1.0, "mobile_wallet": 0.0,
               "aggregator": 1.0}  # fmt: skip
HOME_CURRENCY = {"us_card": "USD", "eu_sepa": "EUR", "uk_faster": "GBP", "aggregator": "USD"}
ACCEPTOR_WIDTHS = (22, 23, 25)  # card networks' merchant-name field, by processor
CATALOGUE_SEED = 20260202  # fixed across seeds, so a merchant keeps its city and processor

# ISO code -> (units per USD, smallest ATM note in units, decimals).
CURRENCIES: dict[str, tuple[float, int, int]] = {
    "USD": (1.0, 1, 2), "GBP": (0.8, 1, 2), "EUR": (0.92, 1, 2), "MXN": (17.0, 10, 2),
    "BRL": (5.0, 5, 2), "PLN": (4.0, 5, 2), "TRY": (32.0, 20, 2), "RUB": (90.0, 100, 2),
    "JPY": (150.0, 100, 0), "CNY": (7.2, 5, 2), "AED": (3.67, 5, 2), "EGP": (48.0, 50, 2),
}  # fmt: skip
# Country -> (currency, web domain, cities). "City/ST" carries a US state; text in another
# script is "native=romanized".
REGIONS: dict[str, tuple[str, str, str]] = {
    "US": ("USD", "com", "Tacoma/WA|Oakland/CA|Savannah/GA|Tulsa/OK|Duluth/MN|Boise/ID|Santa Fe/NM"),
    "GB": ("GBP", "co.uk", "London|Manchester|Leeds|Glasgow|Cardiff|Bristol|Belfast|Norwich"),
    "DE": ("EUR", "de", "München|Köln|Düsseldorf|Nürnberg|Würzburg|Lübeck|Saarbrücken|Gießen"),
    "AT": ("EUR", "at", "Wien|Graz|Linz|Salzburg|Innsbruck|Wörgl|Mödling"),
    "FR": ("EUR", "fr", "Paris|Orléans|Besançon|Nîmes|Saint-Étienne|Béziers|Angoulême|Sète"),
    "ES": ("EUR", "es", "Málaga|Córdoba|León|Cádiz|A Coruña|Logroño|Jaén|Ávila"),
    "MX": ("MXN", "com.mx", "Ciudad de México|Querétaro|Mérida|Mazatlán|Culiacán|Torreón"),
    "PT": ("EUR", "pt", "Lisboa|Évora|Setúbal|Guimarães|Braga|Portimão"),
    "BR": ("BRL", "com.br", "São Paulo|Brasília|Goiânia|Florianópolis|Belém|Niterói"),
    "IT": ("EUR", "it", "Forlì|Cantù|Paternò|Milano|Torino|Cefalù|Napoli"),
    "PL": ("PLN", "pl", "Kraków|Łódź|Gdańsk|Poznań|Wrocław|Białystok|Rzeszów|Toruń"),
    "TR": ("TRY", "com.tr", "İstanbul|İzmir|Eskişehir|Muğla|Şanlıurfa|Çanakkale|Kuşadası"),
    "RU": ("RUB", "ru", "Москва=Moskva|Санкт-Петербург=Sankt-Peterburg|Казань=Kazan|"
                         "Новосибирск=Novosibirsk|Екатеринбург=Yekaterinburg"),
    "GR": ("EUR", "gr", "Αθήνα=Athina|Θεσσαλονίκη=Thessaloniki|Πάτρα=Patra|Ηράκλειο=Irakleio|"
                        "Βόλος=Volos"),
    "JP": ("JPY", "jp", "東京=Tokyo|大阪=Osaka|京都=Kyoto|横浜=Yokohama|札幌=Sapporo|福岡=Fukuoka"),
    "CN": ("CNY", "cn", "上海=Shanghai|北京=Beijing|广州=Guangzhou|深圳=Shenzhen|成都=Chengdu|杭州=Hangzhou"),
    "AE": ("AED", "ae", "دبي=Dubai|أبوظبي=Abu Dhabi|الشارقة=Sharjah|العين=Al Ain|عجمان=Ajman"),
    "EG": ("EGP", "eg", "القاهرة=Cairo|الإسكندرية=Alexandria|الجيزة=Giza|أسوان=Aswan|الأقصر=Luxor"),
}  # fmt: skip

# Local merchants are "{n} {p}"-like compositions of a category noun and a proper name of one
# language. Per language: countries, patterns ("native=romanized" where they differ), proper
# names, legal forms (employers) and nouns by category.
_NOUN_CATEGORIES = ("groceries", "restaurants", "coffee", "fuel", "transport", "travel",
                    "housing", "utilities", "shopping", "health", "entertainment")  # fmt: skip
_LANGUAGES: dict[str, tuple[str, ...]] = {
    "en": ("US GB", "{p}'s {n}|{p} {n}",
           "Hartley|Ashford|Pemberton|Whitmore|Kingsley|Harbour|Foxglove|Millbrook|Thistle|Redfern|"
           "Larkspur|Halcyon|Juniper|Marlowe|Bellweather|Oakridge|Wexley|Cobblestone|Tamsin|Brambley",
           "Ltd|Inc|LLC|plc",
           "Market|Grocers|Food Store|Corner Shop|Farm Shop", "Kitchen|Grill|Diner|Curry House|Chippy",
           "Coffee|Roasters|Espresso Bar|Tea Room", "Fuel|Petrol Station|Service Station",
           "Cabs|Parking|Car Wash|Motors|Tyres", "Inn|Guest House|Lodge|Travel",
           "Lettings|Property Management|Estates|Homes", "Water|Energy|Broadband|Power",
           "Outfitters|Hardware|Books|Gifts|Florist", "Dental|Pharmacy|Physio|Clinic|Opticians",
           "Cinema|Bowl|Arcade|Theatre|Comedy Club"),
    "de": ("DE AT", "{n} {p}|{p} {n}",
           "Müller|Schröder|Weiß|Köhler|Fuchs|Krüger|Hoffmann|Schäfer|Lindenhof|Rosengarten|Brückner|"
           "Göbel|Böhm|Jäger|Kühn|Sonnenschein|Alpenblick|Zum Löwen|Schwarzwald|Großmann",
           "GmbH|AG|KG",
           "Bäckerei|Metzgerei|Feinkost|Bioladen|Getränkemarkt", "Gasthaus|Pizzeria|Imbiss|Brauhaus|Wirtshaus",
           "Café|Kaffeerösterei|Konditorei|Kaffeehaus", "Tankstelle|Autohof|Tankcenter",
           "Taxi|Parkhaus|Autowerkstatt|Waschstraße|Fahrradladen", "Hotel|Pension|Gästehaus|Reisebüro",
           "Hausverwaltung|Immobilien|Wohnbau|Mietverwaltung", "Stadtwerke|Energie|Wasserversorgung|Netz",
           "Buchhandlung|Schuhhaus|Blumen|Modehaus|Spielwaren", "Apotheke|Zahnarztpraxis|Physiotherapie|Optik",
           "Kino|Kegelbahn|Theater|Freizeitpark"),
    "fr": ("FR", "{n} {p}|{n} chez {p}",
           "Dupré|Lefèvre|Bérénice|Moulin|Chevalier|Rousseau|Leblanc|Gaëlle|Mélanie|Étoile|Clément|"
           "Bonnefoy|Lavallée|Hélène|Saint-Honoré|Beaulieu|Noël|Joséphine|Château|Françoise",
           "SARL|SAS|SA",
           "Épicerie|Boulangerie|Boucherie|Primeur|Fromagerie", "Brasserie|Bistrot|Crêperie|Rôtisserie|Restaurant",
           "Café|Salon de thé|Torréfacteur|Pâtisserie", "Station-service|Relais|Carburants",
           "Taxi|Parking|Garage|Auto-école|Vélos", "Hôtel|Auberge|Gîte|Voyages",
           "Agence immobilière|Syndic|Foncière|Gestion locative", "Énergie|Eaux|Régie|Télécom",
           "Librairie|Quincaillerie|Fleuriste|Maroquinerie|Bijouterie", "Pharmacie|Cabinet dentaire|Kinésithérapie|Opticien",
           "Cinéma|Théâtre|Bowling|Salle de jeux"),
    "es": ("ES MX", "{n} {p}|{n} Casa {p}",
           "García|Núñez|Peña|Muñoz|Rodríguez|Martínez|Iñaki|Begoña|Azahar|La Alhambra|El Rocío|Ibáñez|"
           "Jiménez|Los Olivos|Montaña|Castaño|Cañada|Álvarez|Pérez|Sol y Sombra",
           "S.L.|S.A.|S.L.U.",
           "Supermercado|Frutería|Carnicería|Panadería|Ultramarinos", "Taberna|Mesón|Asador|Taquería|Marisquería",
           "Cafetería|Café|Churrería|Tostadores", "Gasolinera|Estación de Servicio|Carburantes",
           "Taxi|Aparcamiento|Taller|Autolavado", "Hostal|Hotel|Posada|Viajes",
           "Inmobiliaria|Administración de Fincas|Alquileres", "Aguas|Energía|Eléctrica|Telecomunicaciones",
           "Librería|Ferretería|Floristería|Zapatería|Joyería", "Farmacia|Clínica Dental|Fisioterapia|Óptica",
           "Cines|Teatro|Bolera|Sala de Juegos"),
    "pt": ("PT BR", "{n} {p}|{n} do {p}",
           "João|Conceição|Gonçalves|Magalhães|Simões|Araújo|Brandão|Estrela|São Jorge|Lusitânia|"
           "Girassol|Açores|Fonseca|Leão|Camões|Alegria|Falcão|Sebastião|Boa Vista|Coração",
           "Lda|S.A.|Ltda",
           "Mercearia|Padaria|Talho|Frutaria|Hortifruti", "Tasca|Churrascaria|Marisqueira|Lanchonete|Cervejaria",
           "Café|Pastelaria|Confeitaria|Cafeteria", "Posto|Bomba de Gasolina|Combustíveis",
           "Táxi|Estacionamento|Oficina|Lava-Jato", "Pousada|Hotel|Alojamento|Viagens",
           "Imobiliária|Condomínio|Administradora|Arrendamentos", "Águas|Energia|Saneamento|Telecom",
           "Livraria|Papelaria|Sapataria|Ferragens|Floricultura", "Farmácia|Clínica Dentária|Fisioterapia|Óptica",
           "Cinema|Teatro|Boliche|Casa de Shows"),
    "it": ("IT", "{n} {p}|{n} da {p}",
           "Rossi|Ferrari|Esposito|Bianchi|Romano|Colombo|Ricci|Marino|Greco|Gallo|Conti|De Luca|"
           "Mancini|Giordano|Nicolò|Fontana|Dell'Orto|Sant'Agata|Perù|Papà Gino",
           "S.r.l.|S.p.A.|S.n.c.",
           "Alimentari|Panificio|Macelleria|Salumeria|Ortofrutta", "Trattoria|Osteria|Pizzeria|Rosticceria|Tavola Calda",
           "Bar|Caffè|Torrefazione|Pasticceria", "Distributore|Carburanti|Stazione di Servizio",
           "Taxi|Parcheggio|Autofficina|Autolavaggio", "Albergo|Pensione|Agriturismo|Locanda",
           "Immobiliare|Amministrazione Condominio|Affitti", "Acquedotto|Energia|Servizi Idrici|Telecomunicazioni",
           "Libreria|Ferramenta|Fioraio|Calzature|Gioielleria", "Farmacia|Studio Dentistico|Fisioterapia|Ottica",
           "Cinema|Teatro|Bowling|Sala Giochi"),
    "pl": ("PL", "{n} {p}|{p} {n}",
           "Kowalski|Wiśniewski|Wójcik|Kamiński|Lewandowski|Zieliński|Szymański|Woźniak|Dąbrowski|"
           "Kozłowski|Jankowski|Mazur|Krawczyk|Grabowski|Pod Lipą|Złota Rączka|Słoneczko|Bałtyk|Żurawina|Ślązak",
           "Sp. z o.o.|S.A.|Sp.j.",
           "Sklep Spożywczy|Piekarnia|Delikatesy|Warzywniak|Mięsny", "Bar Mleczny|Pierogarnia|Restauracja|Karczma|Kebab",
           "Kawiarnia|Cukiernia|Palarnia Kawy|Herbaciarnia", "Stacja Paliw|Paliwa|Stacja",
           "Taxi|Parking|Warsztat|Myjnia", "Hotel|Pensjonat|Zajazd|Biuro Podróży",
           "Zarządca Nieruchomości|Wspólnota Mieszkaniowa|Najem", "Wodociągi|Energetyka|Ciepłownia|Telekomunikacja",
           "Księgarnia|Kwiaciarnia|Obuwie|Papiernik|Jubiler", "Apteka|Gabinet Stomatologiczny|Fizjoterapia|Optyk",
           "Kino|Teatr|Kręgielnia|Salon Gier"),
    "tr": ("TR", "{p} {n}|{p} {n}",
           "Yılmaz|Kaya|Demir|Şahin|Çelik|Yıldız|Yıldırım|Öztürk|Aydın|Özdemir|Arslan|Doğan|Kılıç|"
           "Aslan|Çetin|Koç|Kurt|Özkan|Şimşek|Güneş",
           "A.Ş.|Ltd. Şti.",
           "Bakkal|Market|Fırın|Kasap|Manav", "Lokanta|Kebapçı|Pideci|Köfteci|Dönerci",
           "Kahvesi|Kahve Evi|Pastanesi|Çay Bahçesi", "Petrol|Akaryakıt|Benzin İstasyonu",
           "Taksi|Otopark|Oto Tamir|Oto Yıkama", "Otel|Pansiyon|Apart|Turizm",
           "Emlak|Yönetim|Site Yönetimi|Gayrimenkul", "Elektrik|Su İdaresi|Doğalgaz|İletişim",
           "Kitabevi|Hırdavat|Çiçekçi|Ayakkabı|Kuyumcu", "Eczanesi|Diş Kliniği|Fizik Tedavi|Optik",
           "Sineması|Tiyatro|Bowling|Oyun Salonu"),
    "ru": ("RU", "{n} «{p}»={n} \"{p}\"|{n} {p}",
           "Берёзка=Beryozka|Ромашка=Romashka|Волна=Volna|Уют=Uyut|Садко=Sadko|Иванов=Ivanov|"
           "Петров=Petrov|Смирнов=Smirnov|Кузнецов=Kuznetsov|Соколов=Sokolov|Лебедев=Lebedev|"
           "Орлов=Orlov|Звезда=Zvezda|Восток=Vostok|Север=Sever|Радуга=Raduga|Калинка=Kalinka|"
           "Русь=Rus|Лукоморье=Lukomorye|Огонёк=Ogonyok",
           "ООО=OOO|АО=AO|ИП=IP",
           "Продукты=Produkty|Пекарня=Pekarnya|Гастроном=Gastronom|Мясная лавка=Myasnaya lavka",
           "Кафе=Kafe|Столовая=Stolovaya|Пельменная=Pelmennaya|Шашлычная=Shashlychnaya|Чебуречная=Cheburechnaya",
           "Кофейня=Kofeynya|Кофе=Kofe|Чайная=Chaynaya|Кондитерская=Konditerskaya",
           "АЗС=AZS|Топливо=Toplivo|Заправка=Zapravka",
           "Такси=Taksi|Парковка=Parkovka|Автосервис=Avtoservis|Шиномонтаж=Shinomontazh",
           "Гостиница=Gostinitsa|Отель=Otel|Хостел=Hostel|Турагентство=Turagentstvo",
           "Управляющая компания=Upravlyayushchaya kompaniya|ТСЖ=TSZh|Аренда=Arenda",
           "Энергосбыт=Energosbyt|Водоканал=Vodokanal|Теплосеть=Teploset|Телеком=Telekom",
           "Книжный=Knizhny|Хозтовары=Khoztovary|Цветы=Tsvety|Обувь=Obuv|Ювелирный=Yuvelirny",
           "Аптека=Apteka|Стоматология=Stomatologiya|Оптика=Optika|Клиника=Klinika",
           "Кинотеатр=Kinoteatr|Театр=Teatr|Боулинг=Bouling|Квест=Kvest"),
    "el": ("GR", "{n} {p}|{p} {n}",
           "Παπαδόπουλος=Papadopoulos|Γεωργίου=Georgiou|Νικολάου=Nikolaou|Οδυσσέας=Odysseas|"
           "Ακρόπολις=Akropolis|Ολυμπία=Olympia|Αιγαίο=Aigaio|Ερμής=Ermis|Δελφοί=Delfoi|Κρήτη=Kriti|"
           "Ιωαννίδης=Ioannidis|Αθηνά=Athina|Πήγασος=Pigasos|Ήλιος=Ilios|Θάλασσα=Thalassa",
           "Α.Ε.=A.E.|Ε.Π.Ε.=E.P.E.|Ι.Κ.Ε.=I.K.E.",
           "Φούρνος=Fournos|Μανάβικο=Manaviko|Παντοπωλείο=Pantopoleio|Κρεοπωλείο=Kreopoleio",
           "Ταβέρνα=Taverna|Ψητοπωλείο=Psitopoleio|Ουζερί=Ouzeri|Εστιατόριο=Estiatorio",
           "Καφενείο=Kafeneio|Καφέ=Kafe|Ζαχαροπλαστείο=Zacharoplasteio",
           "Πρατήριο Καυσίμων=Pratirio Kafsimon|Καύσιμα=Kafsima",
           "Ταξί=Taxi|Στάθμευση=Stathmefsi|Συνεργείο=Synergeio",
           "Ξενοδοχείο=Xenodocheio|Δωμάτια=Domatia|Πανσιόν=Pansion",
           "Κτηματομεσιτικό=Ktimatomesitiko|Διαχείριση Ακινήτων=Diacheirisi Akiniton",
           "Ενέργεια=Energeia|Ύδρευση=Ydrefsi|Τηλεπικοινωνίες=Tilepikoinonies",
           "Βιβλιοπωλείο=Vivliopoleio|Ανθοπωλείο=Anthopoleio|Υποδήματα=Ypodimata",
           "Φαρμακείο=Farmakeio|Οδοντιατρείο=Odontiatreio|Οπτικά=Optika",
           "Σινεμά=Sinema|Θέατρο=Theatro|Μπόουλινγκ=Bowling"),
    "ja": ("JP", "{p}{n}={p} {n}",
           "山田=Yamada|田中=Tanaka|佐藤=Sato|鈴木=Suzuki|高橋=Takahashi|伊藤=Ito|渡辺=Watanabe|"
           "中村=Nakamura|小林=Kobayashi|加藤=Kato|桜=Sakura|富士=Fuji|大和=Yamato|銀座=Ginza|"
           "梅田=Umeda|新宿=Shinjuku|浅草=Asakusa|日の出=Hinode|若葉=Wakaba|松屋=Matsuya",
           "株式会社=KK|有限会社=YK",
           "スーパー=Super|八百屋=Yaoya|精肉店=Seinikuten|ベーカリー=Bakery",
           "ラーメン=Ramen|食堂=Shokudo|寿司=Sushi|居酒屋=Izakaya|焼肉=Yakiniku",
           "珈琲店=Coffeeten|喫茶=Kissa|カフェ=Cafe|茶房=Sabo",
           "石油=Sekiyu|サービスステーション=SS|給油所=Kyuyujo",
           "タクシー=Taxi|パーキング=Parking|自動車整備=Jidosha Seibi",
           "旅館=Ryokan|ホテル=Hotel|民宿=Minshuku|旅行社=Ryokosha",
           "不動産=Fudosan|管理組合=Kanri Kumiai|賃貸=Chintai",
           "電力=Denryoku|ガス=Gas|水道局=Suidokyoku|通信=Tsushin",
           "書店=Shoten|金物店=Kanamonoten|花店=Hanaten|靴店=Kutsuten",
           "薬局=Yakkyoku|歯科=Shika|整骨院=Seikotsuin|眼鏡店=Meganeten",
           "映画館=Eigakan|劇場=Gekijo|ボウリング=Bowling|カラオケ=Karaoke"),
    "zh": ("CN", "{p}{n}={p} {n}",
           "王记=Wangji|李氏=Lishi|张家=Zhangjia|老陈=Laochen|刘记=Liuji|金龙=Jinlong|长城=Changcheng|"
           "东方=Dongfang|华联=Hualian|新世纪=Xinshiji|福满=Fuman|百味=Baiwei|黄河=Huanghe|"
           "江南=Jiangnan|鸿运=Hongyun|天天=Tiantian|明珠=Mingzhu|蓝天=Lantian|和平=Heping|好运=Haoyun",
           "有限公司=Youxian Gongsi|集团=Jituan",
           "超市=Chaoshi|便利店=Bianlidian|生鲜=Shengxian|水果店=Shuiguodian",
           "饭店=Fandian|面馆=Mianguan|火锅=Huoguo|烧烤=Shaokao|饺子馆=Jiaoziguan",
           "咖啡=Kafei|茶馆=Chaguan|奶茶=Naicha", "加油站=Jiayouzhan|石化=Shihua|能源=Nengyuan",
           "出租车=Chuzuche|停车场=Tingchechang|洗车=Xiche", "酒店=Jiudian|宾馆=Binguan|客栈=Kezhan",
           "物业=Wuye|房产=Fangchan|物业管理=Wuye Guanli", "电力=Dianli|燃气=Ranqi|自来水=Zilaishui|电信=Dianxin",
           "书店=Shudian|五金店=Wujindian|花店=Huadian|鞋店=Xiedian|百货=Baihuo",
           "药房=Yaofang|牙科=Yake|诊所=Zhensuo|眼镜店=Yanjingdian", "影城=Yingcheng|剧院=Juyuan|KTV=KTV"),
    "ar": ("AE EG", "{n} {p}",
           "النور=Al Noor|الريان=Al Rayyan|الخليج=Al Khaleej|السلام=Al Salam|الأمل=Al Amal|"
           "الفجر=Al Fajr|الواحة=Al Waha|البركة=Al Baraka|الصفا=Al Safa|المدينة=Al Madina|"
           "الزهراء=Al Zahra|الهدى=Al Huda|الشام=Al Sham|النخيل=Al Nakheel|القمر=Al Qamar|"
           "الأندلس=Al Andalus|الياسمين=Al Yasmin|الجزيرة=Al Jazeera",
           "ذ.م.م=LLC|ش.م.ع=PJSC",
           "بقالة=Baqala|سوبرماركت=Supermarket|مخبز=Makhbaz|ملحمة=Malhama",
           "مطعم=Matam|مشويات=Mashawi|شاورما=Shawarma|مندي=Mandi",
           "مقهى=Maqha|قهوة=Qahwa|حلويات=Halawiyat", "محطة وقود=Mahattat Waqud|بترول=Petrol",
           "تاكسي=Taxi|مواقف=Mawaqif|ورشة سيارات=Warshat Sayarat", "فندق=Funduq|شقق فندقية=Shuqaq Fundukiya|سفريات=Safariyat",
           "عقارات=Aqarat|إدارة أملاك=Idarat Amlak", "كهرباء=Kahraba|مياه=Miyah|اتصالات=Ittisalat",
           "مكتبة=Maktaba|عطور=Otoor|أحذية=Ahdhiya|مجوهرات=Mujawharat",
           "صيدلية=Saydaliya|عيادة أسنان=Iyadat Asnan|بصريات=Basariyat", "سينما=Cinema|ملاهي=Malahi|مسرح=Masrah"),
}  # fmt: skip

# The frequent merchants of each category, most popular first: "CC Name[=romanized][@channel]".
# Without @channel a head is paid through its category's channel.
CATEGORY_CHANNELS = {
    "groceries": "store", "restaurants": "store", "coffee": "store", "fuel": "store",
    "transport": "store", "travel": "store", "housing": "bill", "utilities": "bill",
    "subscriptions": "bill", "shopping": "store", "health": "store", "entertainment": "store",
    "income": "deposit", "transfers": "p2p", "fees": "fee", "cash": "atm",
}  # fmt: skip
HEADS: dict[str, str] = {
    "groceries": "DE EDEKA|DE REWE|FR Carrefour|ES Mercadona|PL Biedronka|GB Tesco|TR Migros|"
                 "RU Пятёрочка=Pyaterochka|PT Pingo Doce|GR Σκλαβενίτης=Sklavenitis|JP イオン=AEON|"
                 "CN 盒马鲜生=Freshippo|GB Sainsbury's|IT Esselunga|MX Soriana|BR Pão de Açúcar|"
                 "AE لولو هايبرماركت=Lulu Hypermarket|GB Ocado@online|DE Flink@online|TR Getir@online",
    "restaurants": "GB Nando's|DE Vapiano|ES Telepizza|FR Flunch|GB Wagamama|RU Теремок=Teremok|"
                   "JP すき家=Sukiya|CN 海底捞=Haidilao|GR Goody's|BR Habib's|IT Autogrill|"
                   "TR Simit Sarayı|MX Vips|GB Deliveroo@online|DE Lieferando@online|ES Glovo@online|"
                   "AE طلبات=Talabat@online",
    "coffee": "DE Tchibo|GB Costa Coffee|GB Caffè Nero|GB Pret A Manger|JP ドトール=Doutor|"
              "CN 瑞幸咖啡=Luckin Coffee|TR Kahve Dünyası|RU Шоколадница=Shokoladnitsa|"
              "PT Delta Cafés|FR Columbus Café|DE Coffee Fellows|GR Mikel Coffee|IT Segafredo Zanetti",
    "fuel": "DE Aral|FR TotalEnergies|ES Repsol|PL Orlen|PT Galp|TR Opet|RU Лукойл=Lukoil|JP ENEOS|"
            "CN 中国石化=Sinopec|AE أدنوك=ADNOC|MX Pemex|BR Posto Ipiranga|IT Eni|GR ΕΚΟ=EKO|ES Cepsa|GB Esso",
    "transport": "GB Bolt@online|DE BVG|FR RATP|GB TfL Travel|DE FREENOW@online|ES Cabify@online|"
                 "RU Яндекс Go=Yandex Go@online|JP モバイルSuica=Mobile Suica|CN 滴滴出行=DiDi@online|"
                 "AE Careem@online|TR Martı@online|BR 99App@online|IT ATM Milano|ES Metro de Madrid|"
                 "PL Jakdojade@online|DE Tier Mobility@online",
    "travel": "GB Ryanair@online|GB easyJet@online|DE Lufthansa@online|FR SNCF Connect@online|"
              "DE Deutsche Bahn@online|ES Renfe@online|IT Trenitalia@online|DE FlixBus@online|"
              "TR Türk Hava Yolları@online|RU Аэрофлот=Aeroflot@online|GR Aegean Airlines@online|"
              "JP 日本航空=Japan Airlines@online|CN 携程旅行=Trip.com@online|BR LATAM Airlines@online|"
              "AE طيران الإمارات=Emirates@online|ES Vueling@online|FR Accor Hôtels|ES Meliá Hotels|"
              "PT Pestana Hotels|JP 東横イン=Toyoko Inn",
    "housing": "DE Vonovia|FR Foncia|DE LEG Wohnen|FR Nexity|DE Allianz Versicherung|FR AXA Assurances|"
               "ES Mapfre|IT Generali|PL PZU|RU Ингосстрах=Ingosstrakh|JP 東京海上日動=Tokio Marine|"
               "GB Grainger plc|GB Aviva|BR Porto Seguro",
    "utilities": "DE E.ON|FR EDF|ES Iberdrola|DE Vattenfall|GB British Gas|FR Orange|GB Vodafone UK|"
                 "ES Movistar|IT Enel Energia|PL Tauron|PT EDP Comercial|DE O2 Telefónica|TR Türk Telekom|"
                 "RU Ростелеком=Rostelecom|GR ΔΕΗ=DEI|JP 東京電力=TEPCO|CN 中国移动=China Mobile|"
                 "AE هيئة كهرباء ومياه دبي=DEWA|GB Thames Water|MX CFE|MX Telmex|BR Claro|ES Endesa",
    "subscriptions": "FR Deezer|GB DAZN|FR Canal+|GB Sky Digital|DE Joyn|GB MUBI|"
                     "RU Яндекс Плюс=Yandex Plus|JP U-NEXT|CN 爱奇艺=iQIYI|AE شاهد=Shahid|US Tidal|"
                     "US Crunchyroll|GB Storytel|DE Blinkist|BR Globoplay|TR BluTV|PL Player.pl|"
                     "IT TIMvision|ES Filmin|DE RTL+",
    "shopping": "DE Zalando@online|PL Allegro@online|TR Trendyol@online|DE MediaMarkt|FR Fnac|"
                "FR Decathlon|ES El Corte Inglés|DE Otto@online|TR Hepsiburada@online|"
                "RU Озон=Ozon@online|RU Wildberries@online|JP 楽天市場=Rakuten Ichiba@online|"
                "CN 淘宝=Taobao@online|CN 京东=JD.com@online|AE نون=noon@online|BR Mercado Livre@online|"
                "MX Liverpool|GB Primark|GB Argos|DE dm-drogerie markt|DE Rossmann|PL Pepco|"
                "JP ヨドバシカメラ=Yodobashi Camera",
    "health": "GB Boots|DE DocMorris@online|GB Superdrug|FR Pharmacie Lafayette|MX Farmacias Guadalajara|"
              "BR Drogasil|PL Apteka Gemini|RU Аптека 36,6=Apteka 36,6|JP マツモトキヨシ=Matsumoto Kiyoshi|"
              "CN 大参林=Dashenlin|AE Aster Pharmacy|DE McFit@bill|FR Basic-Fit@bill|"
              "DE Urban Sports Club@bill|GB PureGym@bill|TR Acıbadem",
    "entertainment": "DE CinemaxX|FR UGC|ES Cinesa|MX Cinépolis|GB Vue Cinemas|GB Odeon|"
                     "DE Eventim@online|PL Multikino|RU КАРО=KARO|GR Village Cinemas|"
                     "JP TOHOシネマズ=TOHO Cinemas|CN 万达影城=Wanda Cinemas|AE ڤوكس سينما=VOX Cinemas|"
                     "TR Biletix@online|IT The Space Cinema|BR Ingresso.com@online|PT NOS Cinemas",
    "income": "DE Familienkasse|GB HMRC|FR DGFiP Impôts|ES Agencia Tributaria|DE Deutsche Rentenversicherung|"
              "FR CAF|GB DWP Universal Credit|PT Segurança Social|BR INSS|PL ZUS|IT INPS|TR SGK|"
              "RU Социальный фонд=Sotsialny fond|JP 日本年金機構=Nihon Nenkin Kiko|GR e-ΕΦΚΑ=e-EFKA",
    "transfers": "GB Revolut|GB Wise|ES Bizum|PL BLIK|GB Monzo|FR Lydia|FR Paylib|PT MB WAY|"
                 "IT Satispay|JP PayPay|CN 支付宝=Alipay|CN 微信转账=WeChat Pay|RU СБП=SBP|TR Papara|"
                 "BR Pix|MX Mercado Pago|US Western Union|US Remitly",
    "fees": "GB Monthly account fee|GB Unarranged overdraft fee|GB Non-sterling transaction fee|"
            "DE Kontoführungsgebühr|DE Auslandseinsatzentgelt|FR Frais de tenue de compte|"
            "FR Cotisation carte bancaire|ES Comisión de mantenimiento|PT Comissão de manutenção|"
            "IT Canone mensile conto|PL Opłata za prowadzenie rachunku|TR Hesap işletim ücreti|"
            "RU Комиссия за обслуживание=Komissiya za obsluzhivanie|"
            "GR Προμήθεια τήρησης λογαριασμού=Promitheia tirisis logariasmou|JP 振込手数料=Furikomi tesuryo|"
            "CN 跨行转账手续费=Kuahang zhuanzhang shouxufei|AE رسوم الخدمة الشهرية=Rusum al-khidma",
    "cash": "DE Sparkasse|FR BNP Paribas|ES CaixaBank|GB Barclays|PL Euronet|DE Deutsche Bank|"
            "FR Crédit Agricole|ES BBVA|PT Millennium bcp|IT Intesa Sanpaolo|TR Ziraat Bankası|"
            "RU Сбербанк=Sberbank|RU ВТБ=VTB|GR Εθνική Τράπεζα=Ethniki Trapeza|JP セブン銀行=Seven Bank|"
            "JP ゆうちょ銀行=Yucho Ginko|CN 中国银行=Bank of China|CN 工商银行=ICBC|BR Itaú|"
            "AE بنك الإمارات دبي الوطني=Emirates NBD|EG البنك الأهلي المصري=National Bank of Egypt|MX Banorte",
}  # fmt: skip
# Invented brands (online shops, subscriptions): every 2- and some 3-syllable combination.
_SYLLABLES = ("ka", "lo", "vi", "ze", "tra", "mo", "ri", "nu", "sel", "dor", "pa", "qui", "fen",
              "xo", "bel", "ta", "mi", "ro", "lu", "zen", "vo", "ny", "ar", "ex")  # fmt: skip
_SUBSCRIPTION_SUFFIXES = ("Plus", "Premium", "Pro", "Cloud", "TV", "Music", "Fit", "Learn", "VPN")
PEOPLE = (
    "Łukasz Wójcik|Ayşe Yılmaz|Иван Петров=Ivan Petrov|María José Núñez|João Simões|"
    "Γιώργος Παπαδόπουλος=Giorgos Papadopoulos|山田花子=Yamada Hanako|王伟=Wang Wei|"
    "محمد العلي=Mohammed Al Ali|Chloé Lefèvre|Jürgen Weiß|Francesca Ricci|Siobhán O'Brien|"
    "Nguyễn Văn An|Zoë Hartley|Søren Ødegaard|Ana Conceição|Mehmet Öztürk|"
    "Ольга Смирнова=Olga Smirnova|Ελένη Νικολάου=Eleni Nikolaou|佐藤健=Sato Ken|李娜=Li Na|"
    "فاطمة الزهراء=Fatima Al Zahra|Renée Dubois|Paweł Dąbrowski|Íñigo Ibáñez|Björn Köhler"
)  # fmt: skip
# Payment processors in front of a small merchant's name, with their share of merchants.
PROCESSORS: dict[str, tuple[tuple[str, float], ...]] = {
    "store": (("", 0.55), ("SQ *", 0.13), ("TST* ", 0.07), ("SUMUP *", 0.07), ("ZETTLE_*", 0.06),
              ("IZ *", 0.04), ("SP * ", 0.04), ("PY *", 0.04)),
    "online": (("", 0.5), ("PAYPAL *", 0.3), ("SP * ", 0.2)),
    "bill": (("", 0.85), ("PAYPAL *", 0.15)),
}  # fmt: skip
# A flipped label lands on a category a tired annotator could have meant.
CONFUSIONS: dict[str, tuple[str, ...]] = {
    "groceries": ("restaurants", "shopping", "coffee"), "restaurants": ("coffee", "groceries"),
    "coffee": ("restaurants", "groceries"), "fuel": ("transport", "groceries"),
    "transport": ("travel", "fuel"), "travel": ("transport", "entertainment"),
    "housing": ("utilities", "transfers"), "utilities": ("subscriptions", "housing"),
    "subscriptions": ("entertainment", "utilities"), "shopping": ("groceries", "entertainment"),
    "health": ("shopping", "groceries"), "entertainment": ("subscriptions", "restaurants"),
    "income": ("transfers",), "transfers": ("income", "cash"), "fees": ("transfers", "utilities"),
    "cash": ("transfers", "fees"),
}  # fmt: skip

# How each style prints a payment, by kind (the channel, or the refund / incoming transfer
# it is). Fields: {name} {city} {st} (US state, else country) {cc} {web} {person}; {acc} the
# card network's acceptor field (processor + name, cut to 22-25 characters); {agg} the
# processor's descriptor (22 characters); {pad} a UK statement's fixed-width name column;
# {short} the name without spaces; dates {mmdd} {md} {dd_mon} {iso} {dmy} {time}; numbers
# {store} {ref} {code} {phone} {last4}; {fx} the foreign amount ("" in the home currency);
# {wallet} {uk}; eu_sepa's bank words {card} {online} {debit} {fee} {atm} {salary} {credit}
# {to} {from_} {refund} {mandate} {reflabel}.
FORMATS: dict[str, dict[str, tuple[str, ...]]] = {
    "us_card": {
        "card": ("{acc} {city} {st}{fx}", "{acc} {city} {st}", "POS DEBIT {acc} {city} {st}",
                 "CHECKCARD {mmdd} {acc} {city} {st}{fx}", "DEBIT CARD PURCHASE {acc} {city} {st}",
                 "PURCHASE AUTHORIZED ON {md} {acc} {city} {st} S{ref} CARD {last4}"),
        "online": ("{acc} {web} {st}{fx}", "{acc} {phone} {st}", "ONLINE PURCHASE {acc} {web}",
                   "CHECKCARD {mmdd} {acc} {web}"),
        "bill": ("ACH DEBIT {acc} {ref}", "{acc} DES:BILL PAY ID:{ref} INDN:{person} WEB",
                 "RECURRING PMT {acc} {phone}", "{acc} AUTOPAY {store}"),
        "fee": ("{name}", "{name} {md}", "{name} REF {store}"),
        "atm": ("ATM WITHDRAWAL {acc} {city} {st}{fx}", "ATM W/D {md} #{store} {city} {st}",
                "NON-NETWORK ATM {acc} {city} {st} CARD {last4}"),
        "payroll": ("{acc} DES:PAYROLL ID:{ref} INDN:{person} PPD", "DIRECT DEP {acc} PAYROLL",
                    "ACH CREDIT {acc} SALARY {store}"),
        "deposit": ("ACH CREDIT {acc} {ref}", "{acc} DES:{code} ID:{ref} PPD"),
        "p2p_out": ("{name} TO {person} {ref}", "{name} PMT {person} {code}",
                    "ONLINE TRANSFER {name} TO {person} REF #{code}"),
        "p2p_in": ("{name} FROM {person} {ref}", "DEPOSIT {name} {person} {code}"),
        "refund": ("REFUND {acc} {city} {st}", "RETURN {acc} {mmdd}", "CREDIT {acc} {ref}"),
    },
    "eu_sepa": {
        "card": ("{card} {name}//{city}/{cc} {iso}{fx}", "{card} {name} {city} {cc} {dmy} Terminal {store}",
                 "{card} {name}//{city}/{cc} {iso} {reflabel}: {ref}"),
        "online": ("{online} {name}//{web} {iso}{fx}", "{online} {name} {reflabel}: {code}{store}"),
        "bill": ("{debit} {name} {mandate}: {code}{store} {reflabel}: {ref}",
                 "{debit} {name} {dmy} {reflabel}: {ref}"),
        "fee": ("{fee} {name} {iso}", "{name} {dmy}"),
        "atm": ("{atm} {name}//{city}/{cc} {iso}{fx}", "{atm} {city} {dmy} {time}"),
        "payroll": ("{salary} {name} {reflabel}: {ref}", "{credit} {name} {salary} {dmy}"),
        "deposit": ("{credit} {name} {reflabel}: {ref}", "{credit} {name} {dmy}"),
        "p2p_out": ("{to} {person} {name} {reflabel}: {ref}", "{name} {to} {person} {iso}"),
        "p2p_in": ("{from_} {person} {name} {reflabel}: {ref}", "{credit} {name} {person}"),
        "refund": ("{refund} {name}//{city}/{cc} {iso}", "{refund} {name} {reflabel}: {ref}"),
    },
    "uk_faster": {
        "card": ("{pad}ON {dd_mon} {uk}", "{pad}{city} ON {dd_mon} {uk}",
                 "CARD PAYMENT TO {name}{fx} ON {dd_mon}"),
        "online": ("{pad}ON {dd_mon} {uk}", "{pad}{web} ON {dd_mon} VIS"),
        "bill": ("{pad}DD", "{pad}{ref} DDR", "{pad}SO"),
        "fee": ("{pad}ON {dd_mon} CHG", "{name}"),
        "atm": ("{pad}{city} ON {dd_mon} CPT", "CASH {name} {dd_mon} @ {time} {city}"),
        "payroll": ("{pad}{ref} BGC", "{pad}SALARY BGC"),
        "deposit": ("{pad}{ref} BGC", "{pad}FPI"),
        "p2p_out": ("{person} {name} {ref} FPO", "{person} REF {code} FPO"),
        "p2p_in": ("{person} {ref} FPI", "{name} {person} FPI"),
        "refund": ("{pad}ON {dd_mon} REFUND CR", "{pad}{city} CR"),
    },
    "mobile_wallet": {
        "card": ("{wallet} - {name}", "{name} ({wallet})", "{name}, {city}", "{wallet} - {name}, {city}"),
        "online": ("{name} (online)", "{wallet} - {name} online", "{web}"),
        "bill": ("Direct Debit to {name}", "{name} - recurring payment"),
        "fee": ("{name}", "Fee: {name}"),
        "atm": ("Cash withdrawal - {name}, {city}", "ATM {city}"),
        "payroll": ("Salary from {name}", "{name} - salary"),
        "deposit": ("Payment from {name}", "{name}"),
        "p2p_out": ("To {person} via {name}", "Sent to {person}"),
        "p2p_in": ("From {person} via {name}", "{person} sent you money"),
        "refund": ("Refund from {name}", "{name} - refund"),
    },
    "aggregator": {
        "card": ("{agg} {phone} {cc}", "{agg} {city} {st}", "{agg} {code}"),
        "online": ("{agg} {phone} {cc}", "{agg} {web}"),
        "bill": ("{agg} {phone}", "{agg} RECURRING {ref}", "GC RE {short} {ref}"),
        "fee": ("{name}",),
        "atm": ("ATM {short} {city} {st}", "CASH {city} {st} {store}"),
        "payroll": ("{short} PAYROLL {ref}", "{short} DIR DEP {mmdd}"),
        "deposit": ("{short} {ref}", "{short} CREDIT {mmdd}"),
        "p2p_out": ("{short} *{person} {phone}", "{short} TO {person}"),
        "p2p_in": ("{short} FROM {person} {ref}", "{short} XFER IN {ref}"),
        "refund": ("{agg} REFUND {phone}", "CREDIT {agg} {code}"),
    },
}  # fmt: skip
_EU_WORDS = ("card", "online", "debit", "fee", "atm", "salary", "credit", "to", "from_", "refund",
             "mandate", "reflabel")  # fmt: skip
EU_LOCALES: tuple[tuple[str, ...], ...] = (
    ("Kartenzahlung", "Online-Zahlung", "SEPA-Lastschrift", "Entgelt", "Bargeldauszahlung",
     "Lohn/Gehalt", "Gutschrift", "Überweisung an", "Überweisung von", "Rückerstattung",
     "Mandatsref.", "End-to-End-Ref."),
    ("Paiement par carte", "Paiement en ligne", "Prélèvement SEPA", "Frais", "Retrait DAB",
     "Virement salaire", "Virement reçu", "Virement émis vers", "Virement reçu de",
     "Remboursement", "RUM", "Réf."),
    ("Compra con tarjeta", "Compra online", "Adeudo SEPA", "Comisión", "Reintegro cajero",
     "Nómina", "Abono", "Transferencia a", "Transferencia de", "Devolución", "Mandato", "Ref."),
    ("Pagamento POS", "Pagamento online", "Addebito SEPA", "Commissione", "Prelievo Bancomat",
     "Stipendio", "Accredito", "Bonifico a", "Bonifico da", "Storno", "Mandato", "Rif."),
    ("Betaalautomaat", "Online betaling", "Incasso", "Kosten", "Geldautomaat", "Salaris",
     "Bijschrijving", "Overboeking naar", "Overboeking van", "Terugbetaling", "Machtiging",
     "Kenmerk"),
)  # fmt: skip
WALLETS = ("Apple Pay", "Google Pay", "Samsung Pay", "Curve", "Revolut")
UK_CARD_CODES = ("BCC", "VIS", "POS", "CLP", ")))")
_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_FOLD = str.maketrans({"ß": "ss", "ẞ": "SS", "ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "æ": "ae",
                       "Æ": "AE", "œ": "oe", "Œ": "OE", "ı": "i", "đ": "d", "Đ": "D"})  # fmt: skip
_NOT_ALNUM = re.compile(r"[\W_]+")
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_ALPHANUMERIC = np.array(list("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"), dtype=object)
_DEBIT, _CREDIT, _REFUND = 0, 1, 2


def fold(text: str) -> str:
    """``text`` with diacritics removed and ß, ł, ø ... spelled out: how a card network that
    only carries ASCII prints a Latin-script name ("Bäckerei Müller" -> "Backerei Muller")."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _pairs(text: str) -> list[tuple[str, str]]:
    """ "a|b=B" -> [("a", fold("a")), ("b", "B")]: native text and its romanized form."""
    out = []
    for item in text.split("|"):
        native, _, roman = item.partition("=")
        out.append((native, roman or fold(native)))
    return out


@dataclass(frozen=True)
class _Catalogue:
    """Every merchant as parallel arrays, so per-row choices are numpy gathers."""

    native: np.ndarray  # object arrays of str
    roman: np.ndarray
    category: np.ndarray  # index into CATEGORIES
    channel: np.ndarray  # object array, keys of base.CHANNEL_TYPES
    region: np.ndarray  # index into REGIONS
    processor: np.ndarray  # object array, "" or a prefix such as "SQ *"
    web: np.ndarray
    phone: np.ndarray
    ranked: tuple[np.ndarray, ...]  # per category: merchant ids, most popular first
    cdf: tuple[np.ndarray, ...]  # per category: cumulative Zipf share by rank
    employers: np.ndarray  # merchant ids paying salaries


def _compositions(rng: np.random.Generator) -> dict[str, list[tuple[str, str, str, str]]]:
    """Local merchants by category as (native, romanized, channel, language): one per noun
    and proper name, in one of the language's word orders; plus employers and invented
    brands (online shops, subscriptions)."""
    out: dict[str, list[tuple[str, str, str, str]]] = {c: [] for c in CATEGORIES}
    for lang, (_, patterns, propers, legal, *nouns) in _LANGUAGES.items():
        forms, names = _pairs(patterns), _pairs(propers)
        for category, words in zip(_NOUN_CATEGORIES, nouns, strict=True):
            for noun, proper in ((n, p) for n in _pairs(words) for p in names):
                native, roman = forms[rng.integers(len(forms))]
                entry = (
                    native.format(n=noun[0], p=proper[0]),
                    roman.format(n=noun[1], p=proper[1]),
                )
                out[category].append((*entry, CATEGORY_CHANNELS[category], lang))
        for form, proper in ((f, p) for f in _pairs(legal) for p in names):
            entry = (f"{proper[0]} {form[0]}", f"{proper[1]} {form[1]}")
            out["income"].append((*entry, "payroll", lang))
    languages = list(_LANGUAGES)
    two = [a + b for a in _SYLLABLES for b in _SYLLABLES]
    three = [a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in _SYLLABLES]
    brands = two + [three[i] for i in rng.permutation(len(three))[:1500]]
    for i, brand in enumerate(b.capitalize() for b in brands):
        lang = languages[rng.integers(len(languages))]
        if i % 2:
            name = f"{brand} {_SUBSCRIPTION_SUFFIXES[rng.integers(len(_SUBSCRIPTION_SUFFIXES))]}"
            out["subscriptions"].append((name, name, "bill", lang))
        else:
            name = (brand, f"{brand} Shop", f"{brand.lower()}.shop")[rng.integers(3)]
            out["shopping"].append((name, name, "online", lang))
    return out


@functools.cache
def _catalogue() -> _Catalogue:
    """Heads first, then the compositions shuffled: the Zipf ranking of every category."""
    rng = np.random.default_rng(CATALOGUE_SEED)
    regions = list(REGIONS)
    lang_regions = {lang: spec[0].split() for lang, spec in _LANGUAGES.items()}
    composed = _compositions(rng)
    rows: list[tuple[str, str, int, str, int, bool]] = []
    seen: set[str] = set()
    ranked, cdf, employers = [], [], []
    for c, category in enumerate(CATEGORIES):
        ids = []
        for region, rest in (h.split(" ", 1) for h in HEADS[category].split("|")):
            rest, _, channel = rest.partition("@")
            ((native, roman),) = _pairs(rest)
            seen.add(native)
            ids.append(len(rows))
            channel = channel or CATEGORY_CHANNELS[category]
            rows.append((native, roman, c, channel, regions.index(region), True))
        pool = composed[category]
        for i in rng.permutation(len(pool)):
            native, roman, channel, lang = pool[i]
            if native in seen:  # "Café Müller" from two languages is one merchant
                continue
            seen.add(native)
            region = lang_regions[lang][rng.integers(len(lang_regions[lang]))]
            if channel == "payroll":
                employers.append(len(rows))
            ids.append(len(rows))
            rows.append((native, roman, c, channel, regions.index(region), False))
        weight = np.arange(1, len(ids) + 1, dtype=np.float64) ** -ZIPF_EXPONENT
        ranked.append(np.array(ids))
        cdf.append(np.cumsum(weight) / weight.sum())
    native, roman, category, channel, region, head = (
        np.array(x, dtype=object) for x in zip(*rows, strict=True)
    )
    tlds = [REGIONS[r][1] for r in regions]
    return _Catalogue(
        native=native,
        roman=roman,
        category=category.astype(np.int64),
        channel=channel,
        region=region.astype(np.int64),
        processor=_processors(rng, channel, category.astype(np.int64), head.astype(bool)),
        web=np.array([_web(r, tlds[g]) for r, g in zip(roman, region, strict=True)], dtype=object),
        phone=np.array(
            [f"{x:010d}" for x in rng.integers(2 * 10**9, 10**10, len(rows))], dtype=object
        ),
        ranked=tuple(ranked),
        cdf=tuple(cdf),
        employers=np.array(employers),
    )


def _processors(
    rng: np.random.Generator, channel: np.ndarray, category: np.ndarray, head: np.ndarray
) -> np.ndarray:
    """Each small merchant keeps one processor; chains take cards themselves, and only
    restaurants and cafés run Toast (``TST*``)."""
    out = np.full(len(channel), "", dtype=object)
    food = np.isin(category, [CATEGORIES.index("restaurants"), CATEGORIES.index("coffee")])
    for kind, table in PROCESSORS.items():
        prefixes, p = zip(*table, strict=True)
        rows = np.flatnonzero((channel == kind) & ~head)
        out[rows] = np.array(prefixes, dtype=object)[rng.choice(len(prefixes), len(rows), p=p)]
    out[(out == "TST* ") & ~food] = ""
    return out


def _web(roman: str, tld: str) -> str:
    """The merchant's web address: its own when its name is one (``JD.com``), else made up."""
    if "." in roman and " " not in roman:
        return roman.lower()
    return _NOT_ALNUM.sub("", fold(roman).lower())[:16] + "." + tld


def generate_hard_transactions(
    n_rows: int,
    *,
    seed: int = 7,
    labeled_fraction: float = 0.25,
    start_date: dt.date = dt.date(2026, 1, 1),
    days: int = 120,
    styles: Iterable[str] | str | None = None,
    label_noise: float = LABEL_NOISE,
) -> pl.DataFrame:
    """Return ``n_rows`` hard synthetic transactions: the raw schema plus ``style``.

    Columns, in order: those of `synthetic.generate_transactions` (transaction_id,
    account_id, posted_date, amount, currency, description, merchant, category,
    transaction_type, with the same formats, label vocabularies and sign rules) and
    ``style``, the STYLES entry the row's bank prints in. ``merchant`` is the true merchant
    in its own script. Exactly ``round(n_rows * labeled_fraction)`` rows carry both labels
    (all others have both null), and of those exactly ``round(labeled * label_noise)`` have
    a wrong category from CONFUSIONS; ``transaction_type`` is always right. Amounts are in
    ``currency``, the merchant's country's (JPY without decimals). ``styles`` (names from
    STYLES, default all) are the styles accounts are drawn from; the payments do not depend
    on it. Same arguments, same frame.

    Raises ValueError for the arguments `generate_transactions` rejects, an unknown or empty
    ``styles``, or ``label_noise`` outside [0, 0.5].
    """
    base._validate(n_rows, seed, labeled_fraction, start_date, days)
    chosen = _validate_styles(styles)
    if not 0.0 <= label_noise <= 0.5:
        raise ValueError(f"label_noise must be within [0, 0.5], got {label_noise!r}")
    cat = _catalogue()
    rng = np.random.default_rng(seed)
    account_weight = rng.lognormal(0.0, 0.8, base.N_ACCOUNTS)
    employer = cat.employers[rng.integers(len(cat.employers), size=base.N_ACCOUNTS)]
    account = rng.choice(base.N_ACCOUNTS, n_rows, p=account_weight / account_weight.sum())
    merchant = _draw_merchants(rng, cat, n_rows)
    own_pay = (cat.category[merchant] == CATEGORIES.index("income")) & (
        rng.random(n_rows) < base.OWN_EMPLOYER_SHARE
    )
    merchant = np.where(own_pay, employer[account], merchant)

    channel = cat.channel[merchant]
    u = rng.random(n_rows)
    mode = np.full(n_rows, _DEBIT)
    mode[np.isin(channel, ["store", "online"]) & (u < base.REFUND_SHARE)] = _REFUND
    mode[(channel == "p2p") & (u < base.INCOMING_SHARE)] = _CREDIT
    types = np.array([TRANSACTION_TYPES.index(base.CHANNEL_TYPES[c]) for c in channel.tolist()])
    type_index = np.where(mode == _REFUND, TRANSACTION_TYPES.index("refund"), types)
    day = rng.integers(days, size=n_rows)
    currency = np.array([REGIONS[r][0] for r in REGIONS], dtype=object)[cat.region[merchant]]
    amount = _amounts(rng, cat.category[merchant], mode, type_index, currency)
    labeled = np.zeros(n_rows, dtype=bool)
    labeled[rng.permutation(n_rows)[: round(n_rows * labeled_fraction)]] = True
    draws = _RowDraws.draw(rng, day, start_date)

    # The bank decides the style; drawn last and with rng.random alone, so that the
    # payments above are the same whatever ``styles`` holds.
    bank = rng.random((base.N_ACCOUNTS, 5))  # style, card, EU locale, wallet, UK code
    style = np.array(chosen, dtype=object)[(bank[:, 0] * len(chosen)).astype(np.int64)][account]
    banks = _Banks.from_uniforms(bank)
    description = _describe(cat, merchant, mode, style, banks, account, currency, amount, draws)
    category = cat.category[merchant]
    category = _add_label_noise(np.random.default_rng([seed, 1]), category, labeled, label_noise)

    id_offset = int(seed) * base._ID_SEED_MULTIPLIER % base._ID_MODULUS  # Python int: no overflow
    ids = (np.arange(n_rows, dtype=np.int64) * base._ID_MULTIPLIER + id_offset) % base._ID_MODULUS
    dates = [(start_date + dt.timedelta(days=d)).isoformat() for d in range(days)]
    frame = pl.DataFrame(
        {
            "transaction_id": pl.Series(ids).cast(pl.Utf8).str.zfill(10),
            "account_id": pl.Series([f"acct_{a:05d}" for a in range(base.N_ACCOUNTS)]).gather(
                account
            ),
            "posted_date": pl.Series(dates, dtype=pl.Utf8).gather(day),
            "amount": pl.Series(amount, dtype=pl.Float64),
            "currency": pl.Series(currency, dtype=pl.Utf8),
            "description": pl.Series(description, dtype=pl.Utf8),
            "merchant": pl.Series(cat.native[merchant], dtype=pl.Utf8),
            "category": pl.Series(CATEGORIES, dtype=pl.Utf8).gather(category),
            "transaction_type": pl.Series(TRANSACTION_TYPES, dtype=pl.Utf8).gather(type_index),
            "style": pl.Series(style, dtype=pl.Utf8),
            "_labeled": labeled,
        }
    )
    return frame.with_columns(
        pl.concat_str(pl.lit("txn_"), pl.col("transaction_id")).alias("transaction_id"),
        *(pl.when("_labeled").then(c).alias(c) for c in ("category", "transaction_type")),
    ).drop("_labeled")


def _validate_styles(styles: Iterable[str] | str | None) -> tuple[str, ...]:
    """The chosen styles in STYLES order, so their order in the argument does not matter."""
    if styles is None:
        return STYLES
    wanted = {styles} if isinstance(styles, str) else set(styles)
    unknown = sorted(wanted - set(STYLES))
    if unknown or not wanted:
        raise ValueError(f"styles must be a non-empty subset of {STYLES}, got {styles!r}")
    return tuple(s for s in STYLES if s in wanted)


def _draw_merchants(rng: np.random.Generator, cat: _Catalogue, n: int) -> np.ndarray:
    """A category by CATEGORY_SHARES, then a merchant by its Zipf rank within it."""
    shares = np.array([base.CATEGORY_SHARES[c] for c in CATEGORIES])
    category = rng.choice(len(CATEGORIES), n, p=shares / shares.sum())
    u = rng.random(n)
    merchant = np.empty(n, dtype=np.int64)
    for c, (ranked, cdf) in enumerate(zip(cat.ranked, cat.cdf, strict=True)):
        rows = np.flatnonzero(category == c)
        rank = np.minimum(np.searchsorted(cdf, u[rows], side="right"), len(ranked) - 1)
        merchant[rows] = ranked[rank]
    return merchant


def _amounts(
    rng: np.random.Generator,
    category: np.ndarray,
    mode: np.ndarray,
    type_index: np.ndarray,
    currency: np.ndarray,
) -> np.ndarray:
    """The category's USD range in local units; ATMs pay whole notes; money out negative."""
    n = len(category)
    ranges = np.array([AMOUNT_RANGES[c] for c in CATEGORIES])
    unit, note, decimals = (
        np.array(x) for x in zip(*(CURRENCIES[c] for c in currency.tolist()), strict=True)
    )
    log_low, log_high = np.log(ranges[category, 0]), np.log(ranges[category, 1])
    # Beta(2, 3) on the log range: most amounts in the lower third, a long right tail.
    amount = np.exp(log_low + rng.beta(2.0, 3.0, size=n) * (log_high - log_low)) * unit
    values, p = zip(*base.ATM_AMOUNTS, strict=True)
    atm = rng.choice(np.array(values, dtype=np.float64), n, p=p) * note
    amount = np.where(category == CATEGORIES.index("cash"), atm, amount)
    whole = (category == CATEGORIES.index("transfers")) & (rng.random(n) < base.WHOLE_DOLLAR_SHARE)
    amount = np.where(whole | (decimals == 0), np.round(amount), np.round(amount, 2))
    amount = np.maximum(amount, 0.01)
    incoming = (mode != _DEBIT) | (type_index == TRANSACTION_TYPES.index("income"))
    return np.where(incoming, amount, -amount)


def _add_label_noise(
    rng: np.random.Generator, category: np.ndarray, labeled: np.ndarray, share: float
) -> np.ndarray:
    """Exactly ``round(labeled * share)`` labeled rows move to a CONFUSIONS category. A
    stream of its own, so a frame differs from its noise-free twin in those labels only."""
    rows = np.flatnonzero(labeled)
    flip = rows[rng.permutation(len(rows))[: round(len(rows) * share)]]
    pick = rng.random(len(flip))
    out = category.copy()
    for i, r in enumerate(flip.tolist()):
        options = CONFUSIONS[CATEGORIES[category[r]]]
        out[r] = CATEGORIES.index(options[int(pick[i] * len(options))])
    return out


@dataclass(frozen=True)
class _Banks:
    """What each account's bank prints besides its style (object arrays, one per account)."""

    last4: np.ndarray
    eu_words: np.ndarray  # index into EU_LOCALES
    wallet: np.ndarray
    uk_code: np.ndarray

    @classmethod
    def from_uniforms(cls, u: np.ndarray) -> _Banks:
        def pick(column: np.ndarray, options: tuple) -> np.ndarray:
            return np.array(options, dtype=object)[(column * len(options)).astype(np.int64)]

        return cls(
            last4=np.array([f"{int(x * 10_000):04d}" for x in u[:, 1]], dtype=object),
            eu_words=(u[:, 2] * len(EU_LOCALES)).astype(np.int64),
            wallet=pick(u[:, 3], WALLETS),
            uk_code=pick(u[:, 4], UK_CARD_CODES),
        )


@dataclass(frozen=True)
class _RowDraws:
    """Every random choice a description makes, drawn up front as arrays."""

    u: np.ndarray  # (n, 8) uniforms: script, case, format, width, store tail, city, person, extra
    store: np.ndarray
    ref: np.ndarray
    code: np.ndarray
    dates: dict[str, np.ndarray]  # format name -> the authorisation date, printed that way

    @classmethod
    def draw(cls, rng: np.random.Generator, day: np.ndarray, start_date: dt.date) -> _RowDraws:
        n = len(day)
        lag = base.MAX_AUTH_LAG_DAYS
        # Index 0 of the date tables is MAX_AUTH_LAG_DAYS before start_date.
        auth = day - rng.integers(lag + 1, size=n) + lag
        table = [start_date + dt.timedelta(days=d) for d in range(-lag, int(day.max()) + 1)]
        formats = {
            "mmdd": lambda d: d.strftime("%m%d"),
            "md": lambda d: d.strftime("%m/%d"),
            "dd_mon": lambda d: f"{d.day:02d} {_MONTHS[d.month - 1]}",
            "iso": dt.date.isoformat,
            "dmy": lambda d: d.strftime("%d.%m.%Y"),
        }
        dates = {k: np.array([f(d) for d in table], dtype=object)[auth] for k, f in formats.items()}
        minute = rng.integers(24 * 60, size=n)
        dates["time"] = np.array(
            [f"{m // 60:02d}:{m % 60:02d}" for m in minute.tolist()], dtype=object
        )
        code = _ALPHANUMERIC[rng.integers(36, size=(n, 6))]
        return cls(
            u=rng.random((n, 8)),
            store=rng.integers(10, 10_000, size=n),
            ref=rng.integers(10**9, 10**10, size=n),
            code=np.array(["".join(row) for row in code.tolist()], dtype=object),
            dates=dates,
        )


def _kinds(channel: np.ndarray, mode: np.ndarray) -> np.ndarray:
    """The FORMATS key of each row: its channel's, or ``refund`` / ``p2p_in``."""
    by_channel = {"store": "card", "online": "online", "bill": "bill", "fee": "fee", "atm": "atm",
                  "payroll": "payroll", "deposit": "deposit", "p2p": "p2p_out"}  # fmt: skip
    kind = np.array([by_channel[c] for c in channel.tolist()], dtype=object)
    kind[mode == _REFUND] = "refund"
    kind[mode == _CREDIT] = "p2p_in"
    return kind


def _describe(
    cat: _Catalogue,
    merchant: np.ndarray,
    mode: np.ndarray,
    style: np.ndarray,
    banks: _Banks,
    account: np.ndarray,
    currency: np.ndarray,
    amount: np.ndarray,
    d: _RowDraws,
) -> list[str]:
    """Fill one of the row's style and kind formats with the row's merchant, place and bank."""
    codes = list(REGIONS)
    places = [
        [(n, r, (r.split("/") + [code])[1]) for n, r in _pairs(REGIONS[code][2])] for code in codes
    ]
    places = [[(n.split("/")[0], r.split("/")[0], st) for n, r, st in p] for p in places]
    people = _pairs(PEOPLE)
    shopping = CATEGORIES.index("shopping")
    # Chains take cards themselves; anything bought online or billed without a processor of
    # its own went through PayPal in the aggregator's feed.
    paypal = {k: "PAYPAL *" if k in ("online", "bill") else "" for k in FORMATS["aggregator"]}
    columns = (
        merchant, style, _kinds(cat.channel[merchant], mode), account, currency, amount, d.u,
        d.store, d.ref, d.code, *d.dates.values(),
    )  # fmt: skip
    out = []
    for m, s, kind, a, cur, amt, u, store, ref, code, mmdd, md, dd_mon, iso, dmy, time in zip(
        *(c.tolist() for c in columns), strict=True
    ):
        script = 0 if u[0] < NATIVE_SHARE[s] else 1
        name = (cat.native[m], cat.roman[m])[script]
        region = cat.region[m]
        place = places[region][int(u[5] * len(places[region]))]
        city, person, web = place[script], people[int(u[6] * len(people))][script], cat.web[m]
        if u[1] < UPPER_SHARE[s]:
            name, city, person, web = name.upper(), city.upper(), person.upper(), web.upper()
        if (
            s == "aggregator"
            and kind == "online"
            and cat.category[m] == shopping
            and u[7] < AMAZON_SHARE
        ):
            out.append(f"AMZN Mktp {codes[region]}*{code}")
            continue
        short = _NOT_ALNUM.sub("", name)
        proc = cat.processor[m]
        width = ACCEPTOR_WIDTHS[int(u[3] * len(ACCEPTOR_WIDTHS))]
        tail = f" #{store:04d}" if kind == "card" and u[4] < 0.3 else ""
        decimals = CURRENCIES[cur][2]
        fields = {
            "name": name, "city": city, "st": place[2], "cc": codes[region], "web": web,
            "person": person, "short": short, "store": f"{store:04d}", "ref": ref, "code": code,
            "phone": cat.phone[m], "last4": banks.last4[a], "wallet": banks.wallet[a],
            "uk": banks.uk_code[a], "mmdd": mmdd, "md": md, "dd_mon": dd_mon, "iso": iso,
            "dmy": dmy, "time": time,
            "acc": (proc + name)[: width - len(tail)].rstrip() + tail,
            "agg": ((proc or paypal[kind]) + short)[: 19 + int(u[3] * 4)],
            "pad": name[:18].ljust(24),
            "fx": "" if cur == HOME_CURRENCY.get(s, cur) else f" {cur} {abs(amt):.{decimals}f}",
            **dict(zip(_EU_WORDS, EU_LOCALES[banks.eu_words[a]], strict=True)),
        }  # fmt: skip
        formats = FORMATS[s][kind]
        text = formats[int(u[2] * len(formats))].format_map(fields)
        if s == "us_card" and u[7] < GARBLE_SHARE:
            text = _NOT_ASCII.sub("?", text)
        out.append(text)
    return out
