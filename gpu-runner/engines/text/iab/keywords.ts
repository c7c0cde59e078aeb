/**
 * Evidence words for the local IAB classifier (iab.ts), per category id of the IAB Content
 * Taxonomy 3.1, beyond the words of the category names themselves (which count for every
 * category, see iab.ts).
 *
 * How these lists were made: written by hand for this project, for every tier-1 category and the
 * tier-2 categories a video is most often about, starting from the category's name and the names of
 * its children in content-taxonomy-3.1.tsv, then adding the everyday English words a speaker uses
 * on the topic (objects, actions, roles, well-known brands and leagues). No list was copied from
 * another source. Words that belong to many topics ("game", "season", "team") may appear under
 * several categories; the scoring needs at least two distinct matched terms before a category is
 * reported, so one shared word decides nothing. Ambiguous words were left out where a common
 * everyday sense would mislead ("stock" is cooking as often as finance, so finance has "stock
 * market"; "temple" is as often a game level as a place of worship). `name` is the category's name
 * as in the TSV, checked by the tests, so an id typo cannot attach a list to the wrong category.
 *
 * Terms are matched on wink-nlp stems, so one form stands for its inflections ("cook" matches
 * "cooked", "cooking"); a term of several words matches those words in sequence and counts double.
 */

export interface IabKeywordList {
  name: string;
  terms: readonly string[];
}

const w = (s: string): readonly string[] =>
  s
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);

export const IAB_KEYWORDS: Readonly<Record<string, IabKeywordList>> = {
  // Tier 1
  "150": {
    name: "Attractions",
    terms: w("museum, zoo, theme park, amusement park, aquarium, landmark, tourist attraction, national park, roller coaster, sightseeing"),
  },
  "1": {
    name: "Automotive",
    terms: w(
      "car, cars, vehicle, engine, driving, driver, motor, tyres, tires, horsepower, fuel, electric car, dealership, suv, sedan, brakes, gearbox, mileage, test drive, dashboard",
    ),
  },
  "42": {
    name: "Books and Literature",
    terms: w(
      "book, novel, author, writer, reading, literature, poetry, poem, fiction, publisher, bestseller, library, paperback, hardcover",
    ),
  },
  "52": {
    name: "Business and Finance",
    terms: w(
      "business, company, market, revenue, profit, investor, investment, startup, ceo, economy, finance, financial, customers, industry, stock market, shares, quarterly, entrepreneur, brand, shareholders",
    ),
  },
  "123": {
    name: "Careers",
    terms: w(
      "career, job, resume, cv, job interview, hiring, employer, salary, promotion, workplace, job search, recruiter, internship, colleagues",
    ),
  },
  "80DV8O": { name: "Communication", terms: w("email, phone call, messaging, text message, social media, newsletter, inbox, video call") },
  "380": {
    name: "Crime",
    terms: w(
      "crime, criminal, police, arrest, murder, robbery, theft, suspect, detective, investigation, prison, jail, fraud, victim, burglary",
    ),
  },
  "381": {
    name: "Disasters",
    terms: w("disaster, earthquake, flood, hurricane, tornado, wildfire, tsunami, evacuation, volcano, famine, landslide, rescue workers"),
  },
  "132": {
    name: "Education",
    terms: w(
      "education, school, student, teacher, classroom, lesson, learn, learning, course, exam, homework, university, college, degree, curriculum, lecture, tutor, pupils",
    ),
  },
  JLBCU7: { name: "Entertainment", terms: w("entertainment, celebrity, audience, performance, premiere, showbiz, red carpet, fans") },
  "8VZQHL": { name: "Events", terms: w("event, conference, festival, convention, expo, ceremony, awards, keynote, tickets") },
  "186": {
    name: "Family and Relationships",
    terms: w(
      "family, parents, children, kids, mother, father, mum, mom, dad, relationship, dating, partner, husband, wife, siblings, grandparents",
    ),
  },
  "201": {
    name: "Fine Art",
    terms: w("art, artist, painting, painter, sculpture, gallery, canvas, exhibition, drawing, portrait, brushstroke, masterpiece"),
  },
  "210": {
    name: "Food & Drink",
    terms: w(
      "food, drink, recipe, cook, kitchen, dish, meal, ingredient, flavour, flavor, taste, delicious, eat, dinner, lunch, breakfast, snack, chef, rice, pasta, bread, cheese, butter, garlic, onion, mushroom, tomato, potato, vegetable, meat, chicken, beef, fish, egg, sauce, soup, salad, parmesan, mozzarella, spices, herbs",
    ),
  },
  SPSHQ5: { name: "Genres", terms: [] },
  "223": {
    name: "Healthy Living",
    terms: w(
      "fitness, exercise, workout, diet, nutrition, wellness, meditation, weight loss, calories, protein, vitamins, gym, yoga, healthy",
    ),
  },
  "239": {
    name: "Hobbies & Interests",
    terms: w("hobby, crafts, collecting, diy, knitting, sewing, woodworking, board games, chess, jigsaw, scrapbooking, pottery"),
  },
  "1KXCLD": { name: "Holidays", terms: w("christmas, easter, thanksgiving, halloween, new year, hanukkah, diwali, ramadan, bank holiday") },
  "274": {
    name: "Home & Garden",
    terms: w(
      "gardening, plants, lawn, flowers, soil, seeds, furniture, living room, bedroom, decorating, renovation, home improvement, wallpaper, tiles, appliances, houseplants",
    ),
  },
  "383": {
    name: "Law",
    terms: w("law, lawyer, court, judge, legal, attorney, lawsuit, contract, trial, verdict, supreme court, legislation, solicitor"),
  },
  "286": {
    name: "Medical Health",
    terms: w(
      "doctor, hospital, patient, disease, symptoms, treatment, medicine, medical, diagnosis, nurse, clinic, surgery, illness, infection, therapy, prescription, vaccine, cancer, diabetes, blood pressure, virus",
    ),
  },
  "163": {
    name: "Personal Celebrations & Life Events",
    terms: w("birthday, wedding, anniversary, graduation, celebration, baby shower, funeral, engagement party, bride, groom"),
  },
  "391": {
    name: "Personal Finance",
    terms: w(
      "money, savings, budget, debt, loan, mortgage, credit card, bank account, pension, retirement, tax, taxes, investing, salary, income, insurance, interest rate",
    ),
  },
  "422": {
    name: "Pets",
    terms: w("pet, dog, cat, puppy, kitten, vet, veterinarian, leash, adoption, breed, hamster, rabbit, litter box, dog food"),
  },
  "386": {
    name: "Politics",
    terms: w(
      "politics, political, government, election, vote, voters, president, prime minister, parliament, congress, senate, campaign, policy, minister, democracy, legislation, candidate, mayor, opposition",
    ),
  },
  "432": {
    name: "Pop Culture",
    terms: w("celebrity, celebrities, famous, gossip, scandal, red carpet, influencer, viral, meme, paparazzi"),
  },
  "441": {
    name: "Real Estate",
    terms: w(
      "real estate, property, apartment, rent, mortgage, landlord, tenant, realtor, estate agent, listing, square feet, housing market",
    ),
  },
  "453": {
    name: "Religion & Spirituality",
    terms: w(
      "religion, god, church, faith, prayer, pray, bible, mosque, synagogue, spiritual, worship, priest, pastor, jesus, christian, muslim, jewish, buddhist, hindu, scripture",
    ),
  },
  "464": {
    name: "Science",
    terms: w(
      "science, scientist, research, experiment, theory, laboratory, physics, chemistry, biology, species, atoms, molecules, universe, planet, discovery, hypothesis",
    ),
  },
  v9i3On: { name: "Sensitive Topics", terms: [] },
  "473": {
    name: "Shopping",
    terms: w("shopping, shop, store, buy, purchase, discount, sale, deal, price, coupon, checkout, cart, retail, mall, bargain"),
  },
  "483": {
    name: "Sports",
    terms: w(
      "sport, team, match, player, coach, season, league, championship, tournament, score, stadium, athlete, referee, fans, final, trophy, victory, defeat, win",
    ),
  },
  "552": {
    name: "Style & Fashion",
    terms: w(
      "fashion, clothes, clothing, outfit, dress, shoes, jacket, designer, runway, wardrobe, makeup, beauty, skincare, hairstyle, accessories, jewelry, jewellery",
    ),
  },
  "596": {
    name: "Technology & Computing",
    terms: w(
      "technology, tech, computer, software, hardware, app, device, laptop, smartphone, tablet, processor, cpu, gpu, chip, memory, storage, battery, screen, display, keyboard, internet, wifi, cloud, operating system, usb, bluetooth, gadget, digital",
    ),
  },
  "653": {
    name: "Travel",
    terms: w(
      "travel, trip, journey, flight, airport, hotel, tourist, tourism, vacation, holiday, passport, luggage, destination, itinerary, backpacking, resort, visa, travellers",
    ),
  },
  "680": {
    name: "Video Gaming",
    terms: w(
      "video game, gaming, gamer, game, console, controller, playthrough, level, boss, boss fight, multiplayer, respawn, quest, dungeon, loot, experience points, speedrun, checkpoint, frames per second, playstation, xbox, nintendo, steam, streamer, npc, skill tree, health bar, dlc, achievement, co-op, pvp, rpg, open world, side quest, fast travel, cutscene, character",
    ),
  },
  "389": {
    name: "War and Conflicts",
    terms: w(
      "war, army, soldier, military, troops, invasion, ceasefire, battlefield, missile, conflict, weapons, navy, air force, veterans, frontline",
    ),
  },

  // Tier 2: Entertainment
  "324": {
    name: "Movies",
    terms: w("movie, film, cinema, director, actor, actress, screenplay, box office, trailer, sequel, cast, hollywood, oscar, blockbuster"),
  },
  "338": {
    name: "Music",
    terms: w(
      "music, song, album, band, singer, guitar, drums, piano, concert, lyrics, melody, chorus, rhythm, playlist, musician, vocals, record label, rapper",
    ),
  },
  "640": {
    name: "Television",
    terms: w("tv show, television, series, episode, season finale, sitcom, streaming, netflix, channel, broadcast, showrunner"),
  },

  // Tier 2: Food & Drink
  "216": {
    name: "Cooking",
    terms: w(
      "recipe, cook, pan, pot, oven, stove, fry, boil, simmer, roast, chop, slice, stir, season, salt, pepper, oil, heat, ladle, stock, sauce, grated, knob, serving, kitchen, chef",
    ),
  },
  "217": {
    name: "Desserts and Baking",
    terms: w("cake, baking, bake, dessert, cookies, pastry, flour, sugar, chocolate, dough, icing, muffin"),
  },
  "211": { name: "Alcoholic Beverages", terms: w("beer, wine, whisky, whiskey, cocktail, vodka, gin, brewery, bartender, pub, vineyard") },
  "222": { name: "Non-Alcoholic Beverages", terms: w("coffee, tea, juice, smoothie, soda, espresso, latte, lemonade") },
  "215": { name: "Barbecues and Grilling", terms: w("barbecue, bbq, grill, grilling, smoker, brisket, charcoal, skewers") },
  "218": { name: "Dining Out", terms: w("restaurant, menu, waiter, reservation, dining, takeaway, bistro, diner") },
  "212": { name: "Vegan Diets", terms: w("vegan, plant-based, dairy-free") },
  "213": { name: "Vegetarian Diets", terms: w("vegetarian, meat-free, meatless") },
  "214": {
    name: "World Cuisines",
    terms: w("italian, mexican, japanese, indian, thai, chinese, sushi, curry, tacos, pizza, risotto, arancini, paella, ramen"),
  },
  "221": { name: "Healthy Cooking and Eating", terms: w("healthy eating, low fat, whole grain, balanced diet, superfood") },

  // Tier 2: Sports
  "533": {
    name: "Soccer",
    terms: w(
      "football, soccer, goal, goalkeeper, striker, midfield, midfielder, defender, penalty, offside, corner, header, winger, premier league, world cup, kick-off, free kick, red card, yellow card, pitch, equaliser, equalizer",
    ),
  },
  "484": {
    name: "American Football",
    terms: w("nfl, touchdown, quarterback, super bowl, linebacker, end zone, field goal, wide receiver"),
  },
  "547": { name: "Basketball", terms: w("nba, dunk, three-pointer, rebound, point guard, hoop, slam dunk") },
  "545": { name: "Baseball", terms: w("mlb, pitcher, home run, inning, batter, strikeout, dugout, shortstop") },
  "539": { name: "Tennis", terms: w("wimbledon, racket, grand slam, backhand, forehand, deuce, tiebreak") },
  "512": { name: "Golf", terms: w("golfer, putt, birdie, bogey, fairway, hole in one, caddie, pga") },
  "491": { name: "Cricket", terms: w("wicket, batsman, bowler, innings, test match, lbw, run out") },
  "527": { name: "Rugby", terms: w("scrum, lineout, fly-half, six nations, conversion kick") },
  "515": { name: "Ice Hockey", terms: w("nhl, puck, goalie, rink, power play, slapshot") },
  "485": { name: "Boxing", terms: w("boxer, knockout, punch, heavyweight, bout, uppercut") },
  "520": { name: "Martial Arts", terms: w("karate, judo, taekwondo, kung fu, mma, jiu-jitsu, ufc") },
  "518": { name: "Auto Racing", terms: w("formula one, f1, grand prix, pit stop, race car, pole position, nascar") },
  "492": { name: "Cycling", terms: w("bike, bicycle, cyclist, tour de france, peloton, pedal") },
  "537": { name: "Swimming", terms: w("swimmer, freestyle, breaststroke, backstroke, swimming pool") },
  "521": { name: "Olympic Sports", terms: w("olympics, olympic, gold medal, medal") },
  "540": { name: "Track and Field", terms: w("sprint, marathon, hurdles, long jump, high jump, javelin, relay, athletics") },
  "531": { name: "Skiing", terms: w("ski, slope, snowboard, piste, ski lift") },
  "546": { name: "Wrestling", terms: w("wrestler, wwe, takedown") },

  // Tier 2: Technology & Computing
  "599": {
    name: "Computing",
    terms: w(
      "computer, programming, code, coding, developer, programmer, compile, server, database, network, algorithm, javascript, python, desktop, operating system, linux, windows, macos, software",
    ),
  },
  "597": {
    name: "Artificial Intelligence",
    terms: w("ai, machine learning, neural network, deep learning, chatbot, language model, training data, assistant"),
  },
  "598": { name: "Augmented Reality", terms: w("ar glasses, ar headset, mixed reality") },
  "632": {
    name: "Consumer Electronics",
    terms: w("smartphone, tablet, headphones, camera, speaker, smartwatch, gadget, battery life, charger, earbuds, headphone jack"),
  },
  "638": { name: "Robotics", terms: w("robot, robotics, automation, robotic arm") },
  "639": { name: "Virtual Reality", terms: w("vr, vr headset, oculus, metaverse") },

  // Tier 2: Video Gaming
  "681": { name: "Console Games", terms: w("console, playstation, xbox, nintendo, controller") },
  "682": { name: "eSports", terms: w("esports, e-sports, pro gamer, competitive gaming, lan") },
  "683": { name: "Mobile Games", terms: w("mobile game, phone game, app store, in-app purchases") },
  "684": { name: "PC Games", terms: w("pc, steam, mouse and keyboard, graphics card, gaming pc") },

  // Tier 2: Education
  "137": {
    name: "College Education",
    terms: w("university, college, campus, professor, degree, undergraduate, semester, tuition, lecture"),
  },
  "148": { name: "Online Education", terms: w("online course, e-learning, tutorial, webinar, mooc") },
  "147": { name: "Language Learning", terms: w("vocabulary, grammar, pronunciation, fluent, fluency, native speaker") },
  "146": { name: "Homework and Study", terms: w("homework, revision, exam, test prep, flashcards") },

  // Tier 2: Business and Finance
  "53": {
    name: "Business",
    terms: w("company, ceo, management, employees, marketing, startup, entrepreneur, sales, customers, brand, strategy, revenue, profit"),
  },
  "80": { name: "Economy", terms: w("economy, inflation, interest rates, recession, gdp, unemployment, central bank, trade, tariffs") },

  // Tier 2: Health
  "225": {
    name: "Fitness and Exercise",
    terms: w("workout, exercise, gym, squats, push-ups, cardio, muscles, stretching, reps, personal trainer"),
  },
  "229": { name: "Nutrition", terms: w("nutrition, protein, vitamins, carbs, calories, diet, fibre, fiber") },
  "231": { name: "Weight Loss", terms: w("lose weight, weight loss, calorie deficit, diet plan") },
  "232": { name: "Wellness", terms: w("wellness, mindfulness, meditation, self-care, relaxation") },
  "301": { name: "Mental Health", terms: w("mental health, anxiety, depression, therapist, stress, burnout") },

  // Tier 2: Science
  "471": { name: "Physics", terms: w("physics, quantum, gravity, particle, relativity, electron, photon") },
  "466": { name: "Chemistry", terms: w("chemistry, chemical, molecule, reaction, element, compound, acid") },
  "465": { name: "Biological Sciences", terms: w("biology, cells, evolution, organism, species, ecosystem") },
  "468": { name: "Genetics", terms: w("dna, gene, genome, genetic, mutation") },
  "472": {
    name: "Space and Astronomy",
    terms: w("space, planet, galaxy, telescope, nasa, orbit, rocket, astronaut, moon, mars, solar system, black hole"),
  },
  "467": {
    name: "Environment",
    terms: w(
      "climate change, climate, pollution, carbon, emissions, renewable, recycling, wildlife, deforestation, sustainability, global warming",
    ),
  },
  "390": { name: "Weather", terms: w("weather, forecast, rain, temperature, storm, sunny, wind, snow") },

  // Tier 2: Politics
  "387": { name: "Elections", terms: w("election, vote, voting, ballot, polls, candidate, campaign, voters, referendum") },
  "388": { name: "Political Issues & Policy", terms: w("policy, immigration, healthcare, reform, regulation, welfare") },

  // Tier 2: Travel
  "672": { name: "Air Travel", terms: w("flight, airport, airline, boarding, layover, jet lag") },
  "668": { name: "Hotels and Motels", terms: w("hotel, motel, check-in, room service, hostel") },
  "677": { name: "Camping", terms: w("camping, tent, campsite, sleeping bag, campfire") },
  "678": { name: "Cruises", terms: w("cruise, cruise ship") },
  "670": { name: "Road Trips", terms: w("road trip, motorway, highway, campervan") },
  "673": { name: "Beach Travel", terms: w("beach, sand, seaside, snorkelling, snorkeling") },

  // Tier 2: Family, Pets
  "192": { name: "Parenting", terms: w("parenting, baby, toddler, bedtime, nappy, diaper") },
  "425": { name: "Dogs", terms: w("dog, puppy, leash, dog food, fetch") },
  "424": { name: "Cats", terms: w("cat, kitten, litter box, purr") },
};
