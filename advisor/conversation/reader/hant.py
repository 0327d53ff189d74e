"""Traditional Chinese read as simplified (Taiwan and Hong Kong users: "兩張4090能跑嗎", "預算二十萬", "幾張H20"),
so the number grammar, the lexicon and the act cues, all written in simplified characters, read both scripts.

One character for one character (the text keeps its length and positions): the traditional forms of the characters
the reader's patterns and common questions use, mapped to their simplified forms (Unicode Unihan kSimplifiedVariant).
A character shared by both scripts with its own meaning in simplified text (著, 乾, 瞭) is left as it is."""

from __future__ import annotations

_TRADITIONAL = (
    "兩張幾塊臺萬億錢麼嗎夠個顯買賣價預該訓練並發長時間們對較費電會當說這還與種裡從體應為啟記憶開單雙節點機雲輸選擇適問題產級"
    "參數權緩優計設準確檔實際國陸灣華騰紀沒裝載變換調話讓範圍專門業務員團隊線後幣內鐘週漲貴貨購採據處誤讀寫頻帶寬儲於樣請謝現"
    "卻邊過達運連遠進隨須頁項順領頭額風館驗黨齊龍東車軟輕輪轉辦農邏醫鏈鍵錯鎖鏡閱闆陣階雖雜雞難霧靜響頂頓類顧飯養馬騎驅髮鬆魚"
    "鳥麥黃龐儘兒冊凍劃則剛創劇動勞勢勵區協厲吳喪嚴囑圖場壓壞壽夢奪奮媽學寧寶將尋導屬嶺帳師幫幹廠廣強彈彙徑復態慶憑懷戰戶擁擊"
    "擴擬擔斷晉暫曆書條來極構標檢歐歲歷歸殘氣決減測溫滿漢潛災無熱營爭爾牆狀獨獲畫盡監盤眾碼礎禮稱積穩窮競筆築簡粵糧約紅純紙細"
    "終組結給統絕經維網緣編縣總績繼續罷義習聖聞聯聲職聽肅脫腦臉興舉艦藝蘇蘭號術衛衝補製複見規視親覺觀訂認討許訴評試詳誌語課談"
    "論諾證識護豐負財貢責質資賬賽趕跡踐軍輯郵鄉鋼錄閉閒關陽隻靈韓願髒鬥屆註佈併倉倫偽傳債傷僅儀兌彎嘗鬧虧擠擺攜敗敵晝暢槓樂歡"
    "滬瀏燈爐犧琺瑪環睏矯禪窩籠紐紋絡綠綜綫緊緒縮繪纜罰羅翹聳膠膽艱藥蘋蟲衆襯覽觸訊託詢誠誰謀謂講譯豬貓賀賴贊軌轄迴遞遲鄰釋針"
    "鈔銀銷鋪錶鍋鏽鐵閣闊陳隱雛離韻頸顆颱餘饋駐騷驚鬱鹽麵齡囉裏麽"
)
_SIMPLIFIED = (
    "两张几块台万亿钱么吗够个显买卖价预该训练并发长时间们对较费电会当说这还与种里从体应为启记忆开单双节点机云输选择适问题产级"
    "参数权缓优计设准确档实际国陆湾华腾纪没装载变换调话让范围专门业务员团队线后币内钟周涨贵货购采据处误读写频带宽储于样请谢现"
    "却边过达运连远进随须页项顺领头额风馆验党齐龙东车软轻轮转办农逻医链键错锁镜阅板阵阶虽杂鸡难雾静响顶顿类顾饭养马骑驱发松鱼"
    "鸟麦黄庞尽儿册冻划则刚创剧动劳势励区协厉吴丧严嘱图场压坏寿梦夺奋妈学宁宝将寻导属岭账师帮干厂广强弹汇径复态庆凭怀战户拥击"
    "扩拟担断晋暂历书条来极构标检欧岁历归残气决减测温满汉潜灾无热营争尔墙状独获画尽监盘众码础礼称积稳穷竞笔筑简粤粮约红纯纸细"
    "终组结给统绝经维网缘编县总绩继续罢义习圣闻联声职听肃脱脑脸兴举舰艺苏兰号术卫冲补制复见规视亲觉观订认讨许诉评试详志语课谈"
    "论诺证识护丰负财贡责质资账赛赶迹践军辑邮乡钢录闭闲关阳只灵韩愿脏斗届注布并仓伦伪传债伤仅仪兑弯尝闹亏挤摆携败敌昼畅杠乐欢"
    "沪浏灯炉牺珐玛环困矫禅窝笼纽纹络绿综线紧绪缩绘缆罚罗翘耸胶胆艰药苹虫众衬览触讯托询诚谁谋谓讲译猪猫贺赖赞轨辖回递迟邻释针"
    "钞银销铺表锅锈铁阁阔陈隐雏离韵颈颗台余馈驻骚惊郁盐面龄啰里么"
)
_TABLE = str.maketrans(_TRADITIONAL, _SIMPLIFIED)


def simplified(text: str) -> str:
    """`text` with its traditional characters in their simplified forms (same length, same positions)."""
    return text.translate(_TABLE)
