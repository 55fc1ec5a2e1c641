"""Labelled memory bullets for the usefulness scorer (client/engine/memory/scorer.py).

Templates x slot values, Korean and English, in the two shapes bullets take in
practice: an extractor's third-person line ("사용자는 ...", "User ...") and a raw
user line (what an over-eager extractor copies). Label 1 = worth remembering
for the next session with this user (facts about the user, preferences, plans,
corrections, ongoing work, constraints), 0 = not (greetings, chit-chat,
transient states, tool noise, one-off questions, assistant meta, vague lines).

The held-out split takes whole template groups (a template with all its values,
or one lone line), so it measures phrasings the scorer never saw.
"""

from __future__ import annotations

import zlib

# (kind, label, lang, template, values); "{}" is replaced by each value, a template
# without "{}" stands alone and each of its values is a lone line of its own group.
T = list[tuple[str, int, str, str, list[str]]]

_PLACES_KO = ["서울 마포구", "대전", "부산 해운대", "제주시", "인천 송도", "광주", "수원", "분당"]
_JOBS_KO = ["간호사", "초등학교 교사", "데이터 분석가", "프론트엔드 개발자", "회계사", "대학원생", "요리사", "물리치료사"]
_LIKES_KO = ["재즈", "등산", "매운 떡볶이", "아이스 아메리카노", "SF 소설", "클래식 음악", "캠핑", "보드게임"]
_PLACES_EN = ["Seattle", "Austin", "Toronto", "Berlin", "downtown Chicago", "Melbourne", "Lyon", "Denver"]
_JOBS_EN = ["a nurse", "a high school teacher", "a data analyst", "a frontend developer", "an accountant",
            "a PhD student", "a chef", "a physical therapist"]
_LIKES_EN = ["jazz", "hiking", "spicy ramen", "iced americano", "sci-fi novels", "classical music", "camping",
             "board games"]

USEFUL: T = [
    # -- Korean: facts about the user
    ("fact", 1, "ko", "사용자는 {}에 산다", _PLACES_KO),
    ("fact", 1, "ko", "나 {}에 살아", _PLACES_KO),
    ("fact", 1, "ko", "사용자의 직업은 {}이다", _JOBS_KO),
    ("fact", 1, "ko", "저는 {}로 일하고 있어요", _JOBS_KO),
    ("fact", 1, "ko", "사용자는 집에서 {}를 키운다", ["고양이 두 마리", "푸들 한 마리", "앵무새", "거북이", "진돗개"]),
    ("fact", 1, "ko", "우리 강아지 이름은 {}야", ["초코", "보리", "콩이", "뭉치", "해피"]),
    ("fact", 1, "ko", "사용자는 {} 알레르기가 있다", ["새우", "우유", "복숭아", "꽃가루", "고양이털", "갑각류"]),
    ("fact", 1, "ko", "저 {} 알레르기 있어요", ["견과류", "계란", "메밀", "밀가루"]),
    ("fact", 1, "ko", "사용자의 아들은 {}이다", ["중학교 1학년", "다섯 살", "고등학생", "대학교 신입생"]),
    ("fact", 1, "ko", "사용자가 자기 생일이 {}이라고 했다", ["5월 2일", "11월 30일", "7월 7일", "1월 19일"]),
    ("fact", 1, "ko", "내 이름은 {}이야, 앞으로 이렇게 불러 줘", ["김서연", "박준호", "이하은", "최민재"]),
    ("fact", 1, "ko", "사용자는 대학에서 {}을 전공했다", ["경영학", "컴퓨터공학", "생물학", "국문학"]),
    ("fact", 1, "ko", "사용자는 {}를 운전한다", ["하이브리드 SUV", "경차", "전기 트럭", "오래된 세단"]),
    ("fact", 1, "ko", "사용자는 {} 때문에 약을 먹고 있다", ["고혈압", "당뇨", "비염", "편두통"]),
    ("fact", 1, "ko", "사용자는 {} 가족이다", ["4인", "아이 셋을 둔", "부모님을 모시고 사는"]),
    # -- Korean: preferences
    ("pref", 1, "ko", "사용자는 {}를 좋아한다", _LIKES_KO),
    ("pref", 1, "ko", "나는 {} 진짜 좋아해", ["뮤지컬", "스키", "마라탕", "고양이 영상", "요가"]),
    ("pref", 1, "ko", "사용자는 {}를 싫어한다", ["오이", "단 음식", "시끄러운 식당", "아침 운동", "공포 영화"]),
    ("pref", 1, "ko", "전 {}은 별로 안 좋아해요", ["해산물", "향신료 강한 음식", "단체 여행", "긴 회의"]),
    ("pref", 1, "ko", "사용자는 답변을 {} 받기를 원한다", ["짧게 요약해서", "표로 정리해서", "존댓말로", "예시 코드와 함께"]),
    ("pref", 1, "ko", "앞으로 답변은 {} 해 줘", ["항상 반말로", "세 줄 이내로", "한국어로만", "출처를 붙여서"]),
    ("pref", 1, "ko", "사용자는 {}를 마시지 않는다", ["술", "커피", "탄산음료", "우유"]),
    ("pref", 1, "ko", "사용자는 여행할 때 {}를 선호한다", ["조용한 소도시", "기차", "에어비앤비", "자유 일정"]),
    # -- Korean: plans and ongoing work
    ("plan", 1, "ko", "사용자는 {} 여행을 계획하고 있다", ["다음 달 오사카", "12월 말 다낭", "여름 유럽 배낭", "설 연휴 강릉"]),
    ("plan", 1, "ko", "나 {} 준비하고 있어", ["정보처리기사 시험", "토익 시험", "이직", "결혼식", "하프 마라톤"]),
    ("plan", 1, "ko", "사용자는 {}까지 끝내야 한다", ["금요일까지 분기 보고서를", "이달 말까지 졸업 논문을", "다음 주까지 발표 자료를"]),
    ("plan", 1, "ko", "사용자는 {}을 고민 중이다", ["내년 봄 창업", "대학원 진학", "집 리모델링", "중고차 구매"]),
    ("plan", 1, "ko", "다음 주 {}에 중요한 약속이 있다고 한다", ["월요일", "수요일 저녁", "토요일 오전"]),
    ("work", 1, "ko", "사용자는 {} 프로젝트를 진행 중이다", ["사내 챗봇", "쇼핑몰 리뉴얼", "모바일 앱", "데이터 파이프라인"]),
    ("work", 1, "ko", "요즘 회사에서 {} 쓰고 있어요", ["파이썬 3.12와 FastAPI", "리액트와 타입스크립트", "스프링 부트", "쿠버네티스"]),
    ("work", 1, "ko", "사용자의 예산은 {} 이하다", ["월 50만 원", "100만 원", "300만 원", "2천만 원"]),
    ("work", 1, "ko", "사용자는 {}를 쓴다", ["맥북 M2", "윈도우 11 노트북", "우분투 서버", "아이폰 15"]),
    ("work", 1, "ko", "사용자는 매일 {} 공부한다", ["아침에 영어를", "퇴근 후 일본어를", "주말마다 통계를"]),
    # -- Korean: corrections
    ("correction", 1, "ko", "사용자는 이제 {}", ["서울이 아니라 대전에 산다", "회사를 그만두고 프리랜서로 일한다",
                                                "커피를 끊었다", "채식을 그만두고 생선은 먹는다"]),
    ("correction", 1, "ko", "정정: {}", ["사용자의 마감일은 금요일이 아니라 월요일이다", "사용자 딸은 3학년이 아니라 4학년이다",
                                        "여행지는 도쿄가 아니라 후쿠오카로 바뀌었다"]),
    ("correction", 1, "ko", "아까 말한 거 틀렸어, {}", ["내 생일은 6월이야", "나 고양이 말고 강아지 키워", "예산은 200만 원까지야"]),
    ("correction", 1, "ko", "사용자는 더 이상 {} 않는다", ["담배를 피우지", "헬스장에 다니지", "야간 근무를 하지"]),
    ("fact", 1, "ko", "나는 {}야", ["왼손잡이", "서른두 살", "두 아이 엄마", "공무원"]),
    ("pref", 1, "ko", "저는 {} 좋아해요", ["조용한 카페를", "비 오는 날을", "한식을", "클래식 기타를"]),
    ("pref", 1, "ko", "나는 {} 못 먹어", ["오이", "매운 거", "날것", "유제품"]),
    ("fact", 1, "ko", "제 딸은 {}", ["피아노를 배워요", "유치원에 다녀요", "중학생이에요"]),
    ("plan", 1, "ko", "나 다음 달에 {}", ["이사 가", "결혼해", "회사 옮겨", "출산 예정이야"]),
    ("fact", 1, "ko", "나는 매일 {}", ["아침에 달리기를 해", "도시락을 싸 가", "한 시간씩 걸어"]),
    # -- English: facts
    ("fact", 1, "en", "User lives in {}", _PLACES_EN),
    ("fact", 1, "en", "I live in {} now", _PLACES_EN),
    ("fact", 1, "en", "User works as {}", _JOBS_EN),
    ("fact", 1, "en", "I'm {} by profession", _JOBS_EN),
    ("fact", 1, "en", "User has {}", ["two cats", "a golden retriever", "a parrot", "a toddler and a newborn"]),
    ("fact", 1, "en", "my dog's name is {}", ["Biscuit", "Luna", "Max", "Pepper"]),
    ("fact", 1, "en", "User is allergic to {}", ["shellfish", "peanuts and tree nuts", "penicillin", "pollen"]),
    ("fact", 1, "en", "User's birthday is {}", ["March 3", "October 21", "June 30", "December 12"]),
    ("fact", 1, "en", "call me {}, that's my name", ["Sam", "Priya", "Jonas", "Mei"]),
    ("fact", 1, "en", "User studied {} at university", ["economics", "mechanical engineering", "art history"]),
    ("fact", 1, "en", "User has {} and takes medication for it", ["type 2 diabetes", "asthma", "high blood pressure"]),
    # -- English: preferences
    ("pref", 1, "en", "User likes {}", _LIKES_EN),
    ("pref", 1, "en", "I really love {}", ["musicals", "skiing", "Thai food", "cat videos", "yoga"]),
    ("pref", 1, "en", "User dislikes {}", ["cucumbers", "sweet desserts", "loud restaurants", "horror movies"]),
    ("pref", 1, "en", "User prefers answers {}", ["short and bulleted", "as tables", "with code examples", "in Korean"]),
    ("pref", 1, "en", "from now on please {}", ["keep replies under three lines", "always cite sources", "answer in English"]),
    ("pref", 1, "en", "User doesn't drink {}", ["alcohol", "coffee", "soda"]),
    ("pref", 1, "en", "User is {}", ["vegan", "gluten-free", "a night owl who works late"]),
    # -- English: plans and work
    ("plan", 1, "en", "User is planning {}", ["a trip to Lisbon next month", "to move to Osaka in spring",
                                               "a wedding in September", "to run a half marathon in May"]),
    ("plan", 1, "en", "I'm preparing for {}", ["the GRE", "a job interview at a bank", "my driving test", "the bar exam"]),
    ("plan", 1, "en", "User must finish {}", ["the quarterly report by Friday", "the thesis draft this month",
                                               "the product demo next week"]),
    ("work", 1, "en", "User is working on {}", ["an internal chatbot", "a mobile app", "a data pipeline", "a Rust CLI tool"]),
    ("work", 1, "en", "at work we use {}", ["Django and Postgres", "Go microservices", "Kotlin on Android", "Terraform on AWS"]),
    ("work", 1, "en", "User's budget is {}", ["under $500", "about $2,000", "$50 a month"]),
    ("work", 1, "en", "User uses {}", ["a Linux desktop", "a Windows laptop", "an iPad for notes"]),
    ("fact", 1, "en", "I'm {}", ["left-handed", "32 years old", "a single dad", "lactose intolerant"]),
    ("pref", 1, "en", "I hate {}", ["olives", "early meetings", "crowded places"]),
    ("fact", 1, "en", "my daughter {}", ["is in second grade", "plays the violin", "starts college in fall"]),
    ("plan", 1, "en", "I'm moving to {} next month", ["Vancouver", "Dublin", "Kyoto"]),
    ("fact", 1, "en", "I go {} every week", ["swimming", "rock climbing", "to choir practice"]),
    ("pref", 1, "en", "I can't eat {}", ["pork", "spicy food", "dairy"]),
    # -- English: corrections
    ("correction", 1, "en", "Correction: {}", ["the deadline is Monday, not Friday", "user's son is 9, not 7",
                                                "the trip is to Porto, not Lisbon"]),
    ("correction", 1, "en", "User no longer {}", ["smokes", "works night shifts", "eats meat", "lives with roommates"]),
    ("correction", 1, "en", "actually I was wrong earlier, {}", ["I moved to Denver last year", "my budget is $300",
                                                                  "I have a cat, not a dog"]),
    ("fact", 1, "ko", "사용자는 {}가 필요하다", ["휠체어 접근 가능한 장소", "글루텐 없는 식단", "매주 회의 알림"]),
    ("fact", 1, "ko", "사용자의 배우자는 {}", ["의사다", "일본인이다", "6월에 출산 예정이다"]),
    ("fact", 1, "ko", "사용자는 {}를 졸업했다", ["서울대", "코딩 부트캠프", "간호대"]),
    ("plan", 1, "ko", "사용자는 {}", ["5월까지 세금 신고를 해야 한다", "여행 전에 여권을 갱신해야 한다",
                                    "다음 달에 자격증 시험을 본다"]),
    ("pref", 1, "ko", "사용자는 보통 {}", ["짧은 설명을 선호한다", "밤늦게 일한다", "주말마다 등산을 간다"]),
    ("fact", 1, "en", "User needs {}", ["wheelchair-accessible venues", "kosher meals", "reminders for a weekly standup"]),
    ("fact", 1, "en", "User's partner is {}", ["a doctor", "Japanese", "expecting a baby in June"]),
    ("fact", 1, "en", "User graduated from {}", ["Seoul National University", "MIT", "a coding bootcamp"]),
    ("plan", 1, "en", "User has to {}", ["submit taxes by May", "renew a passport before the trip",
                                         "take a certification exam next month"]),
    ("pref", 1, "en", "User tends to {}", ["prefer concise explanations", "work late at night", "travel on weekends"]),
]

NOT_USEFUL: T = [
    # -- Korean: greetings, thanks, reactions
    ("greeting", 0, "ko", "사용자가 {}", ["인사했다", "안부를 물었다", "고맙다고 했다", "작별 인사를 했다",
                                         "좋은 하루 보내라고 했다"]),
    ("greeting", 0, "ko", "", ["안녕하세요", "고마워", "잘 가", "ㅎㅎ 고마워요", "반가워", "수고했어", "좋은 아침!",
                              "ㅋㅋㅋ", "알겠어", "오케이", "네 감사합니다", "굿굿"]),
    # -- Korean: chit-chat and transient states
    ("chitchat", 0, "ko", "사용자가 오늘 {} 물었다", ["날씨를", "미세먼지를", "몇 시인지", "무슨 요일인지"]),
    ("chitchat", 0, "ko", "사용자는 {} 추천을 부탁했다", ["점심 메뉴", "오늘 볼 영화", "노래 한 곡", "간식"]),
    ("chitchat", 0, "ko", "", ["오늘 날씨 진짜 덥다", "심심해", "배고프다", "재밌는 얘기 해 줘", "주말인데 뭐 하지",
                              "졸리다", "비 오네", "농담 하나만", "월요일 싫다", "퇴근하고 싶다"]),
    ("transient", 0, "ko", "사용자는 지금 {}", ["배가 고프다고 했다", "좀 피곤하다", "버스를 타고 가는 중이다",
                                               "카페에 앉아 있다", "기분이 좋다고 했다"]),
    ("transient", 0, "ko", "나 지금 {}", ["너무 졸려", "점심 먹는 중", "지하철이야", "잠깐 쉬는 중"]),
    # -- Korean: tool noise
    ("tool", 0, "ko", "검색 도구로 {}를 찾아봤다", ["오늘 환율", "서울 날씨", "주가", "뉴스 속보"]),
    ("tool", 0, "ko", "web_search 결과 {}건을 받았다", ["3", "5", "10"]),
    ("tool", 0, "ko", "어시스턴트가 {} 도구를 호출했다", ["web_search", "news_search", "get_time", "fetch"]),
    ("tool", 0, "ko", "도구 결과 요약: {}", ["오늘 코스피 2,600선 회복", "내일 전국 비 소식", "검색 결과 없음"]),
    ("tool", 0, "ko", "{} 때문에 검색을 다시 했다", ["결과가 비어서", "시간 초과", "오류"]),
    # -- Korean: one-off questions and tasks
    ("oneoff", 0, "ko", "사용자가 {} 물었다", ["에베레스트 높이를", "프랑스의 수도를", "1달러 환율을", "광합성 원리를",
                                            "파이썬 리스트 정렬 방법을", "오늘 코스피 지수를"]),
    ("oneoff", 0, "ko", "사용자는 {} 번역을 요청했다", ["이 문장의", "이메일 한 단락의", "메뉴판의"]),
    ("oneoff", 0, "ko", "", ["세계에서 제일 긴 강은?", "피보나치 코드 짜 줘", "이 문장 영어로 번역해 줘", "1+1은?",
                            "지금 몇 시야?", "삼각형 넓이 공식 알려 줘", "조선 건국 연도는?", "이 에러 무슨 뜻이야?"]),
    ("oneoff", 0, "ko", "사용자가 {} 계산을 부탁했다", ["팁", "환율", "평수"]),
    # -- Korean: assistant meta and vague lines
    ("meta", 0, "ko", "어시스턴트가 {}", ["답변을 다시 설명했다", "예시를 들어 주었다", "사과했다", "질문을 되물었다"]),
    ("meta", 0, "ko", "대화가 {}", ["짧게 끝났다", "계속 이어졌다", "다른 주제로 넘어갔다"]),
    ("meta", 0, "ko", "", ["사용자가 방금 한 말을 다시 설명해 달라고 했다", "사용자가 무언가를 언급했다",
                          "사용자와 이런저런 이야기를 나눴다", "특별한 내용 없음", "방금 말한 거 다시"]),
    ("oneoff", 0, "ko", "사용자가 {}의 뜻을 물었다", ["세렌디피티", "가성비", "API", "인플레이션"]),
    ("oneoff", 0, "ko", "{} 뜻이 뭐야?", ["레거시", "밈", "알고리즘", "골든타임"]),
    ("oneoff", 0, "ko", "오늘 {} 날씨 어때?", ["서울", "부산", "제주", "강릉"]),
    ("oneoff", 0, "ko", "사용자는 {} 뉴스를 찾아 달라고 했다", ["오늘 경제", "야구", "연예", "IT"]),
    ("meta", 0, "ko", "어시스턴트는 {}에 대해 설명했다", ["블랙홀", "금리 인상", "재귀 함수", "광합성"]),
    ("chitchat", 0, "ko", "사용자가 {} 이야기를 잠깐 했다", ["날씨", "어제 본 드라마", "교통 체증", "점심"]),
    # -- English: greetings
    ("greeting", 0, "en", "User {}", ["said hello", "said thanks", "said goodbye", "asked how the assistant was"]),
    ("greeting", 0, "en", "", ["hi there", "thanks!", "ok cool", "lol", "good morning", "bye for now", "got it",
                              "sounds good", "hey"]),
    # -- English: chit-chat and transient states
    ("chitchat", 0, "en", "User asked about {}", ["today's weather", "the time", "what day it is", "a fun fact"]),
    ("chitchat", 0, "en", "", ["it's so hot today", "i'm bored", "tell me a joke", "what should i do this weekend",
                              "ugh mondays", "it's raining again"]),
    ("transient", 0, "en", "User is {} right now", ["hungry", "tired", "on the bus", "at a cafe", "in a meeting"]),
    ("transient", 0, "en", "I'm {} at the moment", ["sleepy", "having lunch", "waiting for a train"]),
    # -- English: tool noise
    ("tool", 0, "en", "Assistant called {}", ["web_search", "news_search", "the time tool", "fetch twice"]),
    ("tool", 0, "en", "Search returned {} results", ["3", "no", "10"]),
    ("tool", 0, "en", "Tool output: {}", ["exchange rate 1,380 KRW", "rain expected tomorrow", "timeout"]),
    # -- English: one-off questions
    ("oneoff", 0, "en", "User asked {}", ["the height of Everest", "the capital of Peru", "how to sort a list in Python",
                                          "what photosynthesis is", "for a synonym of happy"]),
    ("oneoff", 0, "en", "User wanted {} translated", ["a sentence", "an email", "a menu"]),
    ("oneoff", 0, "en", "", ["what's the longest river?", "write a fibonacci function", "what's 15% of 80?",
                            "who wrote Hamlet?", "what does this error mean?"]),
    # -- English: assistant meta and vague lines
    ("meta", 0, "en", "Assistant {}", ["explained the answer again", "gave an example", "apologized"]),
    ("meta", 0, "en", "", ["User mentioned something", "The conversation continued", "Nothing notable",
                          "User asked to repeat the last answer", "small talk"]),
    ("oneoff", 0, "en", "User asked what {} means", ["serendipity", "an API", "inflation", "a mortgage"]),
    ("oneoff", 0, "en", "what's the weather like in {} today?", ["Paris", "Tokyo", "Boston"]),
    ("oneoff", 0, "en", "User asked for news about {}", ["the stock market", "football", "elections"]),
    ("meta", 0, "en", "Assistant explained {}", ["black holes", "interest rates", "recursion", "photosynthesis"]),
    ("chitchat", 0, "en", "User chatted about {}", ["the weather", "a TV show", "traffic", "lunch"]),
    ("greeting", 0, "en", "User thanked the assistant for {}", ["the recipe", "the explanation", "the help"]),
    ("chitchat", 0, "en", "User said they were {} today", ["busy", "cold", "in a hurry"]),
    ("chitchat", 0, "en", "I'm {} lol", ["starving", "so bored", "procrastinating"]),
    ("oneoff", 0, "en", "can you {}?", ["recommend a movie tonight", "summarize this article", "explain that again",
                                        "check the news"]),
    ("oneoff", 0, "en", "User asked to {}", ["repeat that", "try again", "shorten that answer"]),
    ("tool", 0, "en", "Assistant searched for {}", ["movie times", "the weather", "a recipe"]),
    ("greeting", 0, "en", "User reacted with {}", ["a laugh", "an emoji", "surprise"]),
    ("greeting", 0, "ko", "사용자가 {} 고맙다고 했다", ["레시피를 알려 줘서", "설명해 줘서", "도와줘서"]),
    ("oneoff", 0, "ko", "{} 해 줄 수 있어?", ["오늘 볼 영화 추천", "이 기사 요약", "다시 설명", "뉴스 확인"]),
    ("transient", 0, "ko", "나 오늘 {}", ["좀 바빠", "늦잠 잤어", "기분 별로야"]),
    ("tool", 0, "ko", "어시스턴트가 {}를 검색했다", ["영화 상영 시간", "날씨", "레시피"]),
    ("greeting", 0, "ko", "사용자가 {}으로 반응했다", ["웃음", "이모티콘", "놀람"]),
    ("oneoff", 0, "ko", "{} 추천해 줘", ["오늘 저녁 메뉴", "볼 만한 드라마", "주말 나들이 장소", "재밌는 유튜브"]),
    ("oneoff", 0, "ko", "{} 알려 줘", ["내일 날씨", "지금 환율", "가까운 약국", "오늘 뉴스"]),
    ("oneoff", 0, "ko", "{} 만들어 줘", ["이메일 초안", "짧은 시", "회의 안건 목록", "퀴즈 세 개"]),
    ("oneoff", 0, "ko", "사용자가 {} 부탁했다", ["맞춤법 검사를", "문장 다듬기를", "코드 리뷰를 한 번"]),
    ("oneoff", 0, "ko", "사용자는 {}을 물어봤다", ["오늘 날짜", "근처 맛집", "영화 개봉일"]),
    ("oneoff", 0, "en", "recommend {}", ["a movie for tonight", "a good podcast", "something to cook"]),
    ("oneoff", 0, "en", "write me {}", ["a haiku", "an email draft", "a quick SQL query"]),
    ("oneoff", 0, "en", "User requested {}", ["a summary of an article", "a joke", "a random fact", "song suggestions"]),
    ("oneoff", 0, "en", "User wanted to know {}", ["today's date", "where the nearest pharmacy is", "a movie release date"]),
]

# issue 49: what users paste or type for the machine, and statements about other things. The
# structural detector (client/core/memory/structure.py) takes the first kinds out before scoring;
# the scorer learns them too, so a model's item that copies one is scored low as well.
HARD_NEGATIVE: T = [
    ("command", 0, "en", "", ["python3 -m venv .venv && .venv/bin/pip install -q -e .", "git push origin main --force",
                             "docker compose up -d", "pip install -r requirements.txt", "sudo apt-get install -y nginx",
                             "cd ~/projects/api", "kubectl get pods -n prod", "npm install --save-dev eslint", "clear", "ls -al"]),
    ("command", 0, "ko", "사용자의 말: {}", ["git checkout -b feature/login", "brew install postgresql@16", "make test",
                                          "chmod +x deploy.sh", "uv run pytest -q"]),
    ("command", 0, "ko", "사용자가 {} 명령을 실행했다", ["git diff", "npm run dev", "docker ps", "pip freeze"]),
    ("command", 0, "en", "User ran {}", ["git status", "npm test", "docker build .", "cargo build --release"]),
    ("code", 0, "en", "", ["def main(): return 0", "for i in range(10): print(i)", "const x = await fetch(url);",
                          "if err != nil { return err }", "import numpy as np", "return f.read()", "}", "x = compute(y)",
                          "public static void main(String[] args) {", "#include <stdio.h>"]),
    ("code", 0, "ko", "사용자의 말: {}", ["print(\"안녕\")", "let total = items.length;", "class User(BaseModel):",
                                       "console.log(result)"]),
    ("sql", 0, "en", "", ["SELECT * FROM users WHERE id = 3;", "UPDATE orders SET status = 'paid' WHERE id = 9;",
                         "CREATE TABLE events (id serial primary key);", "DELETE FROM sessions WHERE expires < now();"]),
    ("sql", 0, "ko", "사용자가 {} 쿼리를 보냈다", ["SELECT count(*) FROM orders", "INSERT INTO logs VALUES (1)"]),
    ("traceback", 0, "en", "", ["Traceback (most recent call last):", "File \"app.py\", line 3, in <module>",
                               "ValueError: invalid literal for int() with base 10: 'x'", "KeyError: 'user_id'",
                               "TypeError: 'NoneType' object is not subscriptable", "at com.example.Main.run(Main.java:42)",
                               "panic: runtime error: index out of range"]),
    ("traceback", 0, "ko", "사용자의 말: {}", ["ModuleNotFoundError: No module named 'requests'", "ZeroDivisionError: division by zero"]),
    ("log", 0, "en", "", ["ERROR: connection refused on port 5432", "2026-12-07 10:21:33 INFO server started on :8080",
                         "WARN  disk usage at 91%", "npm ERR! code ERESOLVE", "fatal: not a git repository",
                         "[error] 1234#0: *5 connect() failed (111: Connection refused)"]),
    ("log", 0, "ko", "", ["오류:  \"users\" 릴레이션 없음", "경고: 디스크 공간이 부족합니다", "치명적오류: 비밀번호 인증을 실패했습니다",
                         "2026-12-07 09:00:01 ERROR 결제 모듈 응답 없음"]),
    ("diff", 0, "en", "", ["index 5109783..3434951 100644", "diff --git a/app.py b/app.py", "@@ -1,4 +1,5 @@",
                          "+ return f.read()", "- return None", "--- a/io.py", "+++ b/io.py"]),
    ("diff", 0, "ko", "사용자의 말: {}", ["+    print(\"디버그\")", "-    return 0", "index a1b2c3d..e4f5a6b 100644"]),
    ("listing", 0, "en", "", ["drwxr-xr-x  5 root root 4096 Dec  7 16:50 client", "total 48", "README.md  pyproject.toml  src",
                             "src/app/main.py", "├── tests", "4.0K    ./docs"]),
    ("listing", 0, "ko", "사용자의 말: {}", ["main.py  utils.py  requirements.txt", "-rw-r--r-- 1 user user 812 Dec  7 nginx.conf"]),
    ("url", 0, "en", "", ["https://github.com/org/repo/pull/42", "https://docs.python.org/3/library/asyncio.html",
                         "www.example.com", "http://localhost:8080/health"]),
    ("url", 0, "ko", "사용자의 말: {}", ["https://blog.naver.com/abc/2231", "https://www.youtube.com/watch?v=abc123"]),
    ("filler", 0, "ko", "", ["ㅇㅋ", "ㄱㅅ", "넵", "ㅠㅠ", "ㅎㅇ", "하이", "오키", "굿굿 고마워", "ㅋㅋ 알겠어", "ㄴㄴ"]),
    ("filler", 0, "en", "", ["k", "ty", "yep", "nope", "cool thanks", "nice", "perfect", "haha", "yo", "done"]),
    ("news", 0, "ko", "", ["오늘 코스피가 2% 넘게 올랐대", "서울시가 내년부터 버스 요금을 올린다고 발표했다",
                          "삼성전자가 새 폴더블폰을 공개했다", "어제 한국은행이 기준금리를 동결했다", "올해 여름이 역대 가장 더웠다고 한다",
                          "부산 엑스포 유치가 무산됐다는 뉴스 봤어"]),
    ("news", 0, "en", "", ["The Fed raised rates by a quarter point today", "Apple announced a new MacBook this morning",
                          "Oil prices fell 4% after the OPEC meeting", "The city council approved the new bike lanes",
                          "Heavy snow closed the airport yesterday, according to the news"]),
    ("quote", 0, "ko", "", ["파이썬의 리스트는 가변 객체입니다", "물은 100도에서 끓습니다", "비타민 D는 햇빛을 받으면 몸에서 만들어집니다",
                           "인덱스를 추가하면 쓰기 속도가 느려질 수 있습니다", "스트레칭은 부상 위험을 줄여 줍니다"]),
    ("quote", 0, "en", "", ["Paris is the capital of France", "A list comprehension is faster than a for loop in most cases",
                           "Regular stretching lowers the risk of injury", "HTTP 404 means the resource was not found",
                           "Caching reduces latency at the cost of freshness"]),
    ("oneoff", 0, "en", "", ["review this please", "scale this recipe for four", "fix the typo in line 3", "translate this to Korean",
                            "check my grammar", "summarize the thread above"]),
    ("oneoff", 0, "ko", "", ["이거 검토해 줘", "레시피 2인분으로 줄여 줘", "오타 고쳐 줘", "영어로 번역해", "위 내용 요약"]),
]
MORE_USEFUL: T = [
    ("plan", 1, "ko", "{}", ["다음 주 화요일에 치과 예약해 놨어", "1월에 제주도 한 달 살기 하려고", "토요일에 동창 결혼식 가",
                            "내년 봄에 대학원 입학해", "8월 말에 회사 옮겨"]),
    ("fact", 1, "ko", "{}", ["간호사로 일한 지 5년 됐어", "매주 수요일마다 수영 다녀", "주말마다 한강에서 자전거 타",
                            "엄마랑 둘이 살아", "고양이 두 마리 키워", "오른쪽 무릎 수술한 적 있어"]),
    ("pref", 1, "ko", "{}", ["매운 건 잘 못 먹어", "아침은 거의 안 먹어", "조용한 숙소가 좋아", "커피는 디카페인만 마셔",
                            "설명은 짧게 해 줘, 길면 안 읽게 돼", "예시는 자바스크립트로 보여 줘"]),
    ("pref", 1, "en", "{}", ["I'd rather take the train than fly", "No cilantro please, I really can't stand it",
                            "Nothing spicy for me, my stomach can't handle it", "Keep your answers short, I read them on my phone",
                            "Show examples in Go, that's what I use at work", "I prefer window seats"]),
    ("fact", 1, "en", "{}", ["I've been a paramedic for six years", "I swim every Wednesday morning", "My wife and I have twin boys",
                            "I live alone with two cats", "I had knee surgery last year"]),
    ("work", 1, "en", "I {}", ["run the payments team at a bank in Frankfurt", "maintain the mobile app for a small airline",
                               "manage IT for a dental clinic in Leeds", "build data pipelines for a retail chain",
                               "lead a team of four QA engineers", "teach math at a middle school in Ohio"]),
    ("work", 1, "en", "I work {}", ["as a line cook in a busy diner", "at a hospital in Busan as a radiographer",
                                    "for a games studio in Montreal", "on the checkout service of an online shop",
                                    "nights as a security guard", "in insurance claims"]),
    ("work", 1, "en", "{}", ["I own a small bike repair shop", "I run the front desk of a hotel in Porto",
                            "I support the ERP system at a car parts factory", "I write the firmware for our smart meters",
                            "I handle payroll for about 300 employees", "I coach the under-12 football team on Saturdays"]),
    ("fact", 1, "ko", "{}", ["제 생일은 9월 2일이에요", "우리 결혼기념일은 5월 21일이야", "12월 3일이 내 생일이야",
                            "딸 생일이 7월 18일이라 선물 준비해야 해", "아버지 기일은 2월 10일이야", "내 면허 갱신일은 11월 30일이야"]),
    ("fact", 1, "en", "{}", ["My birthday is on August 9", "Our wedding anniversary is June 14",
                            "My son's birthday is March 30", "My lease ends on October 31"]),
    ("pref", 1, "en", "{}", ["Keep explanations brief and put the code first", "Always show the shell command before the explanation",
                            "Use metric units with me", "Answer in plain English, no jargon", "Skip the pleasantries and get to the point"]),
    ("pref", 1, "en", "Please {}", ["keep replies brief, bullet points are best", "always answer with the command first",
                                    "make explanations short, I skim them", "never use emojis in answers"]),
    ("pref", 1, "en", "No {}", ["onions for me, I'm allergic", "seafood, I hate the smell", "long paragraphs, I won't read them",
                               "pork, I don't eat it"]),
    ("pref", 1, "ko", "{}", ["답변은 항상 표로 정리해 줘", "앞으로 존댓말 말고 반말로 해 줘", "설명은 세 줄 이내로 부탁해",
                            "양파는 빼 줘, 알레르기 있어"]),
    ("news", 0, "en", "", ["Home prices in Austin fell 5% last year according to a report", "Gas prices rose again this week",
                          "The new iPhone sold out in two days, the news said", "Tokyo's subway fares go up in April"]),
    ("transient", 0, "ko", "", ["야근이라 너무 피곤하다", "비 와서 기분이 좀 그래", "오늘따라 너무 덥네", "회의가 길어서 지친다"]),
    ("plan", 1, "en", "{}", ["My dentist appointment is next Tuesday", "I'm starting grad school next spring",
                            "We're visiting my parents in Ohio over Christmas", "Changing jobs at the end of August"]),
]

HELDOUT_PERCENT = 25
SEED = 21


def heldout(key: str) -> bool:
    """Fixed split by a hash of the template (or lone line): adding templates moves no other."""
    return zlib.crc32(f"{SEED}:{key}".encode("utf-8")) % 100 < HELDOUT_PERCENT


def make_bullets(exclude: set[str] = frozenset()) -> list[dict]:  # type: ignore[assignment]
    """All labelled bullets with their split; lines in `exclude` (the bench's) are left out."""
    out: list[dict] = []
    for t, (kind, label, lang, template, values) in enumerate(USEFUL + NOT_USEFUL + HARD_NEGATIVE + MORE_USEFUL):
        for i, v in enumerate(values):
            text = template.format(v) if template else v
            if text in exclude:
                continue
            out.append({"text": text, "label": label, "lang": lang, "kind": kind,
                        "group": f"t{t}" if template else f"t{t}.{i}",
                        "split": "heldout" if heldout(template or v) else "train"})
    return out
