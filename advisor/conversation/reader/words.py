"""The extractor's readers of words: weight and KV-cache formats, the task (LoRA, full fine-tuning, pre-training,
serving), and the job's settings: NVLink, used cards, llama.cpp offload, region, engine, ZeRO stage, LoRA rank,
batch size, buy or rent.

Each reader takes the working `Text` and the `Slots` being filled; the format reader blanks out what it read.
"""

from __future__ import annotations

import re

from advisor.conversation.reader import constraints as reading
from advisor.conversation.reader.numbers import DIGITS, to_number
from advisor.conversation.reader.rental import read_provider
from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.text import Text

_PRECISION: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?<![a-z0-9])q8_0(?![a-z0-9])"), "q8_0"),
    (re.compile(r"(?<![a-z0-9])q6_k(?:_[sml])?(?![a-z0-9])"), "q6_k"),
    (re.compile(r"(?<![a-z0-9])q5_k(?:_[ms])?(?![a-z0-9])"), "q5_k_m"),
    (re.compile(r"(?<![a-z0-9])q4_k(?:_[ms])?(?![a-z0-9])|q4km"), "q4_k_m"),
    (re.compile(r"(?<![a-z0-9])q4_0(?![a-z0-9])"), "q4_0"),
    (re.compile(r"(?<![a-z0-9])q3_k(?:_[sml])?(?![a-z0-9])"), "q3_k_m"),
    (re.compile(r"(?<![a-z0-9])q2_k(?![a-z0-9])"), "q2_k"),
    # the GGUF shorthand people type ("R1 at Q4", "Q8 版本"): the usual file of that width; not a quarter ("in Q4")
    *((re.compile(rf"(?<![a-z0-9])(?<!in )(?<!by )(?<!of )(?<!during )(?<!this )(?<!next )(?<!last )q{n}"
                  r"(?![a-z0-9_])(?!\s*(?:20\d\d|'\d\d))"), fmt)
      for n, fmt in (("8", "q8_0"), ("6", "q6_k"), ("5", "q5_k_m"), ("4", "q4_k_m"), ("3", "q3_k_m"), ("2", "q2_k"))),
    (re.compile(r"gptq[\s\-_]*(?:int)?8|8[\s\-_]*bit[\s\-_]*gptq"), "gptq-int8"),
    (re.compile(r"gptq"), "gptq-int4"),
    (re.compile(r"(?<![a-z])awq"), "awq-int4"),
    (re.compile(r"(?<![a-z0-9])nf4|bnb[\s\-_]*4|bitsandbytes[\s\-_]*4|load_in_4bit"), "nf4"),
    (re.compile(r"bnb[\s\-_]*(?:int)?8|bitsandbytes[\s\-_]*8|load_in_8bit|llm\.int8"), "bnb-int8"),
    (re.compile(r"(?<![a-z0-9])fp8|e4m3|8[\s\-_]*位浮点"), "fp8"),
    (re.compile(r"(?<![a-z0-9])(?:int8|w8a8|w8a16)(?![a-z0-9])|(?<![\d.])8[\s\-_]*(?:bits?|位)(?![a-z])|八位|8比特"), "int8"),
    (re.compile(r"(?<![a-z0-9])(?:int4|w4a16|w4a8)(?![a-z0-9])|(?<![\d.])4[\s\-_]*(?:bits?|位)(?![a-z])|四位|4比特"), "int4"),
    (re.compile(r"(?<![a-z0-9])bf16(?![a-z0-9])|bfloat16"), "bf16"),
    (re.compile(r"(?<![a-z0-9])fp16(?![a-z0-9])|float16|半精度|(?<![\d.])16[\s\-_]*(?:bits?|位)(?![a-z])"), "fp16"),
    (re.compile(r"(?<![a-z0-9])fp32(?![a-z0-9])|float32|单精度|全精度|(?<![\d.])32[\s\-_]*(?:bits?|位)(?![a-z])"), "fp32"),
]
_KV_FORMAT = re.compile(
    r"kv[\s\-_]*(?:cache|缓存)?\s*(?:用|使用|in|at|as|=|:|改成|换成)?\s*(?P<a>fp8|int8|int4|fp16|bf16)"
    r"|(?P<b>fp8|int8|int4|fp16|bf16)\s*(?:的)?\s*kv"
)
_TASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"q[\s\-_]*lora"), "qlora"),
    (re.compile(r"(?<![a-z])lora|(?<![a-z])peft|adapter"), "lora"),
    (re.compile(r"全参|全量|全参数|full[\s\-_]*(?:parameter[\s\-_]*)?(?:fine[\s\-_]*tun\w*|finetun\w*|ft|sft)|full[\s\-_]*param(?:eter)?s?(?![a-z])|"
                # "full DPO of Llama-3-8B": a preference method on all the weights
                r"full[\s\-_]*(?:dpo|kto|ipo|orpo|simpo)(?![a-z])|"
                r"fully[\s\-_]*(?:fine[\s\-_]*tun\w*|finetun\w*)|all (?:the )?(?:weights|parameters) (?:trained|updated)|"
                # "fine-tune Qwen3-8B fully", "finetune it fully on 1B tokens"
                r"(?:fine[\s\-_]*tun\w*|finetun\w*)(?:\s+[\w.\-]+){0,3}\s+fully(?![\w-])"), "full"),
    (re.compile(r"冻结|freeze"), "freeze"),
    (re.compile(r"预训练|从头训练|从零训练|从零开始训练|从头开始训练|pre[\s\-_]*train\w*|from scratch|继续预训练|continued pretrain\w*"), "pretrain"),
]
_NEGATED = re.compile(r"(?:(?<![a-z])(?:not|no|without|rather than|instead of|never)|不用|不是|不要|而不是|非)\s*(?:a\s+|an\s+|the\s+|用\s*)?$")
_FINETUNE = re.compile(r"微调|精调|fine[\s\-_]*tun\w*|finetun\w*|(?<![a-z])sft(?![a-z])|instruction[\s\-_]*tun\w*|指令微调|调优|(?<![a-z])(?:dpo|kto|ipo|orpo|simpo|rlhf|grpo|ppo|rloo|dapo)(?![a-z])|偏好(?:对齐|优化|训练)|强化学习")
# "训练", and "训" alone as the verb ("用 8 张 H100 训 Llama3-8B", "训一个 70B"), not 培训/教训/军训 …
_TRAIN = re.compile(r"训练|(?<![培教集军家校特])训(?![练诫斥话])|(?<![a-z])train(?:ing|ed)?(?![a-z])")
# a training framework or a per-GPU throughput asked ("with FSDP", "MFU?", "每卡每秒多少 token"): full-parameter training
# a training plan asked ("global batch", "TP/PP/DP layout", "3D parallelism", "并行策略"): a pre-training run, with no
# training word needed
_PLAN_CUE = (r"global[\s-]*batch|全局\s*(?:batch|批)|(?<![a-z])(?:tp|pp|dp)\s*[/×x,、]\s*(?:tp|pp|dp)(?![a-z])|"
             r"3d[\s-]*parallel|pipeline[\s-]*parallel|tensor[\s-]*parallel|并行策略|流水线并行|张量并行|"
             # "the best parallelism layout / strategy" (并行策略 in English)
             r"parallel(?:ism)?[\s-]+(?:layout|strategy|plan|setup|config(?:uration)?)|"
             # a pipeline schedule named ("should I use DualPipe?", "zero-bubble", "interleaved 1F1B"): the plan
             r"dual[\s-]*pipe|zero[\s-]*bubble|(?<![a-z0-9])1f1b(?![a-z0-9])|流水线气泡|pipeline[\s-]*bubble")
_PLAN = re.compile(_PLAN_CUE)
_FULL_TRAINING_CUE = re.compile(r"(?<![a-z])(?:fsdp2?|torchtitan|megatron|mfu|hfu)(?![a-z])|model flops utili|算力利用率|"
                                r"per[\s-]gpu|每卡|单卡每秒|" + _PLAN_CUE + "|"
                                # FP8 against BF16 training: a pre-training (or full) run's choice
                                r"fp8[\s-]*(?:training|train)|(?:training|train)\s+(?:in|with)\s+fp8|"
                                r"(?:fp8|bf16)\s*(?:vs\.?|versus|比|对比|相比|instead of|而不是|还是|or|and|和)\s*(?:the\s*)?(?:fp8|bf16)")
# a training framework named with no training word ("FSDP2 with float8 on 8 H100?", "Megatron on 64 A100"): its run
_FRAMEWORK = re.compile(r"(?<![a-z])(?:fsdp2?|torchtitan|megatron(?:[\s-]*(?:lm|core))?|deepspeed)(?![a-z])")  # (not
# NeMo: Mistral NeMo is a model)
_INFER = re.compile(
    r"推理|部署|上线|服务化|在线服务|提供服务|跑(?!完)|客服|机器人|聊天|对话|问答|生成|api服务|"
    r"inference|replicas?|副本|serv(?:e|ing|er for)|deploy\w*|host\w*|(?<![a-z])(?<!the )(?<!a )(?<!this )(?<!that )(?<!training )run(?:ning)?(?![a-z])|chatbot|chat bot|assistant|\brag\b"
)
# "要跑多久", "how long does it run": running said of a training job as much as of a service
_RUN = re.compile(r"跑(?!完)|(?<![a-z])run(?:ning|s)?(?![a-z])")
_REGION_CN = re.compile(r"国内|中国|大陆|境内|内地|国产|(?<![a-z])china(?![a-z])|mainland|(?<![a-z])prc(?![a-z])|in cn(?![a-z])|chinese market|"
                        r"chinese (?:companies|company|customers?|firms?|clients?|buyers?)")
_REGION_GLOBAL = re.compile(r"海外|国外|境外|overseas|outside china|(?<![a-z])global(?![a-z])(?!\s*[-_]?\s*(?:batch|bs|batch[\s_-]*size|tokens?|step|norm|attention|layers?|sequences?|seqs?|gbs)(?![a-z]))|(?<![a-z])usa?(?![a-z])|united states|europe|(?<![a-z])eu(?![a-z])|international")
_ENGINES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"vllm"), "vllm"),
    (re.compile(r"llama\.cpp|llamacpp|ollama|lm studio|gguf"), "llama.cpp"),
    (re.compile(r"sglang"), "sglang"),
    (re.compile(r"tensorrt[\s\-_]*llm|trt[\s\-_]*llm"), "trtllm"),
    (re.compile(r"deepspeed"), "deepspeed"),
    (re.compile(r"megatron"), "megatron"),
    (re.compile(r"(?<![a-z])fsdp2?(?![a-z])|torchtitan"), "fsdp"),
    (re.compile(r"transformers|hugging ?face"), "transformers"),
]
_HOME = re.compile(r"家用|家里|在家|自己的电脑|个人电脑|游戏本|笔记本|台式机|(?:在)?本地(?:跑|运行|玩|试试?)|"
                   r"(?<![a-z])(?:at home|home (?:lab|pc|server|use|setup)|"
                   r"my (?:own )?(?:pc|laptop|desktop|gaming (?:pc|rig)|workstation)|gaming (?:pc|rig)|hobby\w*|"
                   r"laptops?|notebook gpu|mobile gpu)(?![a-z])")
# "run it locally", "on my own machine": one person's computer, unless an organisation is in the sentence ("deploy it
# locally for our 200 staff" is on-premises serving, not a home machine)
_LOCALLY = re.compile(r"(?<![a-z])(?:locally|on my (?:own )?(?:machine|computer|gpu|card|box|rig|mac)|local llm)(?![a-z])")
_ORGANISATION = re.compile(r"(?<![a-z])(?:team|company|companies|enterprise|employees|staff|customers|clients|users|"
                           r"production|on[\s-]?prem\w*|organi[sz]ation|department|colleagues|engineers|developers)(?![a-z])|"
                           r"公司|团队|企业|员工|客户|用户|生产")
# a training optimizer said by name (advisor.estimator.training_memory's bytes of state per parameter): bitsandbytes'
# 8-bit AdamW ("8-bit adam", "adamw_8bit", "adamw_bnb_8bit", "paged_adamw_8bit", "8bit 优化器"), AdamW with its
# state in bf16 ("bf16 adam", "pure bf16 optimizer"), plain SGD
_OPTIMIZERS = (
    ("adamw8bit", re.compile(r"8[\s\-_]*bit[\s\-_]*(?:paged[\s\-_]*)?adam\w*|(?:paged[\s\-_]*)?adamw?[\s\-_]*(?:bnb[\s\-_]*)?"
                             r"8[\s\-_]*bit|8\s*(?:bit|位)\s*(?:的)?\s*(?:adam\w*|优化器)")),
    ("adamw-bf16", re.compile(r"bf16[\s\-_]*(?:adam\w*|optimi[sz]er(?:\s+states?)?)|(?:adam\w*|优化器)(?:状态)?\s*(?:用|in)\s*bf16")),
    ("sgd", re.compile(r"(?<![a-z])sgd(?![a-z])")),
)
_ZERO = re.compile(r"zero[\s\-_]*(?:stage)?[\s\-_]*(?P<n>[0-3])(?![0-9])")
_MFU = re.compile(r"(?:mfu|model flops utili[sz]ation|算力利用率|利用率)\D{0,12}?(?P<a>\d{1,2}(?:\.\d+)?)\s*%|"
                  r"(?P<b>\d{1,2}(?:\.\d+)?)\s*%\s*(?:的\s*)?(?:mfu|model flops|算力利用率|利用率)")
_LORA_RANK = re.compile(r"(?:rank|秩|r)\s*(?:=|:|of|为|是)?\s*(?P<n>\d{1,4})(?![0-9])")
_GLOBAL_BATCH = re.compile(r"(?:global|total|effective|overall|全局|总|整体|等效)\s*(?:的)?\s*$")
_BATCH = re.compile(rf"(?:batch[\s\-_]*size|micro[\s\-_]*batch|批大小|批量大小|batch)\s*(?:=|:|of|为|是|to|at|set to|"
                    rf"开到|开成|设成|设为|设到|调到|调成|拉到|给到|用)?\s*(?P<n>{DIGITS})")
_BUY = re.compile(r"买卡|购买|采购|自建|买(?!不)|(?<![a-z])buy(?:ing)?(?![a-z])|purchase|on[\s-]*prem")
_RENT = re.compile(r"租(?:用|赁|云|卡)?|云上|上云|云服务|(?<![a-z])rent(?:als?|ing|ed|s)?(?![a-z])|cloud|(?<![a-z])leas(?:e|ed|ing)(?![a-z])")


def read_precision(t: Text, slots: Slots) -> None:
    """The KV-cache format ("fp8 kv") and the weights format (GGUF quants first, then GPTQ/AWQ/NF4/…/fp32)."""
    kv = _KV_FORMAT.search(t.s)
    if kv:
        slots.kv = kv.group("a") or kv.group("b")
        t.consume(kv.start(), kv.end())
    for rx, fmt in _PRECISION:
        m = rx.search(t.s)
        if m:
            slots.weights = fmt
            t.consume(m.start(), m.end())
            return
    if re.search(r"量化|quantiz|quantis", t.s):
        slots.weights = "int4"  # "量化" alone: the common 4-bit case; the dialog states it as an assumption


def read_task(t: Text, slots: Slots, training: bool = False) -> None:
    """The task: a method word (QLoRA, LoRA, full, freeze, pre-training), else "finetune"/"train" without a
    method (`task_generic`), else inference when serving words, a concurrency, a claim or a GGUF quant say so; in a
    training conversation (`training`) running alone ("5万条数据要跑多久") is the training run's."""
    for rx, task in _TASKS:
        hits = [m for m in rx.finditer(t.s) if not _NEGATED.search(t.s[max(0, m.start() - 14):m.start()])]
        if hits:  # ("fully fine-tune it (not LoRA)", "不用 LoRA，全参微调": the method ruled out is not the task)
            slots.task = task  # a generic 4-bit QLoRA base keeps "int4": the dialog maps it to nf4
            return
    pinned = slots.pinned_layout is not None  # "TP8 PP4" (reader.layout): Megatron's full-parameter training
    if _FINETUNE.search(t.s):
        if pinned:  # "fine-tune Llama 70B with TP8 PP4": every weight trained
            slots.task = "full"
            return
        slots.task_generic = "finetune"
        return
    load = slots.concurrency or slots.headcount or slots.qps  # "on 8 H100 with TP 4 at 64 users": a served layout
    if _TRAIN.search(t.s) or ((_PLAN.search(t.s) or pinned) and not _INFER.search(t.s) and not load):
        if _FULL_TRAINING_CUE.search(t.original.lower()) or (pinned and _TRAIN.search(t.s)):  # (the words as typed: a precision read before is blanked)  # "training Llama 3 8B with FSDP: what MFU?": every weight trained
            slots.task = "pretrain"
            return
        slots.task_generic = "train"
        return
    served = _INFER.search(_RUN.sub(" ", t.s) if training else t.s)
    if not served and _FRAMEWORK.search(t.original.lower()):  # "FSDP2 with float8 vs BF16 for an 8B?": a training run
        slots.task = "pretrain"
        return
    if (served or slots.concurrency or slots.headcount or slots.qps or slots.claim is not None
            or (slots.weights and slots.weights.startswith("q"))):
        slots.task = "inference"


_USED = re.compile(r"二手|(?<![a-z])used (?:cards?|gpus?|ones|market|[ahlb]\d|rtx|mi\d|\d{4})|second[- ]hand|refurbished|翻新|"
                   r"(?<![a-z])(?:buy|buying|bought|get|getting|go|going|purchase|purchasing)\s+(?:them\s+|it\s+)?used(?![a-z])")
# llama.cpp layer offload to system RAM (not a trainer's optimizer/ZeRO offload, which the task words carry)
_NO_OFFLOAD = re.compile(r"(?:without|no|not|don'?t|do not|never|avoid(?:ing)?|w/o)\s+(?:any\s+|using\s+|use\s+|want\s+(?:to\s+)?)?"
                         r"(?:cpu\s+|zero[- ]?)?offload(?:ing)?|不(?:要|用|想|做|开|使用)?\s*(?:cpu\s*|zero\s*)?(?:卸载|offload)|"
                         r"(?:关闭|禁用|去掉)\s*(?:cpu\s*)?(?:卸载|offload)")
_OFFLOAD = re.compile(r"(?<!优化器)(?<!optimizer )(?<!zero-)(?<!zero )(?:内存卸载|卸载到(?:系统)?内存|(?<!不)卸载|(?:放|挪|分)(?:一部分|部分)?(?:层)?"
                      r"(?:到|进|在)(?:系统|cpu\s*)?内存|(?:cpu|partial|layer|ram)\s*offload(?:ing)?|offload(?:ing)?\s+"
                      r"(?:(?:some |the )?layers|to (?:the )?(?:cpu|ram|system (?:memory|ram)))|(?<![a-z])-?ngl(?![a-z])|"
                      r"n_gpu_layers|gpu[- ]layers|"
                      # "on a 3090 with offload", "using CPU offloading", "w/ offload" (not "offload the optimizer")
                      r"(?<![a-z])(?:with|using|via|plus|w/)\s+(?:some\s+|partial\s+)?offload(?:ing)?(?!\s+(?:the\s+)?"
                      r"(?:optimi[sz]er|params|parameters|gradients))|(?:gpu|vram)\s*\+\s*(?:cpu|ram|system ram))")
# a coding use: a coding assistant or agent, code completion, a coder model ("Qwen2.5-Coder", "CodeLlama", "StarCoder2")
CODING_USE = re.compile(r"(?<![a-z])(?:cod(?:e|ing|er)|programming|copilot|cline|aider|codellama|codestral|starcoder\d*)"
                        r"(?![a-z])|编程|写代码|代码")
# a cloud named as the place the job runs ("on RunPod", "via Lambda", "在 AutoDL 上"); API sellers are not card rental
_ON_CLOUD = re.compile(r"(?<![a-z])(?:on|at|via|using|use|with|in|from)\s+(?:a\s+|an\s+|the\s+)?(?:run\s*pod|lambda|core\s*weave|"
                       r"vast(?:\.ai|ai|\s+ai)|modal|paperspace|tensor\s*wave|nebius|vultr|aws|amazon|ec2|gcp|google cloud|azure|"
                       r"oracle cloud|oci)(?![a-z])|(?:在|用|通过|上)\s*(?:auto\s*dl|autodl|恒源云|矩池云|阿里云|腾讯云|火山引擎|华为云|"
                       r"百度智能云|aws|亚马逊云|亚马逊|azure|微软云|gcp|谷歌云|run\s*pod|lambda)"
                       # "which EC2 instance", "an Azure VM", "阿里云的实例": the cloud's own machines asked for
                       r"|(?<![a-z])(?:aws|ec2|sagemaker|gcp|gce|google cloud|azure|oci|lambda|run\s*pod|core\s*weave)"
                       r"\s+(?:gpu\s+)?(?:instances?|vms?|nodes?|machines?|boxes)(?![a-z])"
                       # an AWS GPU instance named ("g6e.12xlarge", "which g6e size", "a p5 instance"): that cloud
                       r"|(?<![a-z0-9])(?:p5(?:e|en)?|p4de?|g6e?|g4dn)(?:\.(?:\d*x?large|metal)(?![a-z])|"
                       r"\s+(?:sizes?|instances?|instance types?|family|boxes|nodes?)(?![a-z]))"
                       r"|(?:aws|ec2|阿里云|腾讯云|火山引擎|华为云|百度智能云|azure|gcp)\s*(?:的|上的)?\s*(?:gpu\s*)?(?:实例|机型|云主机|云服务器)")
API_ONLY = ("Together AI", "Replicate")
# a cost asked beside the cloud named ("how much", "per month", "多少钱"): the rental is what is asked; "用阿里云，用什么卡"
# asks for the card
_COST_WORD = re.compile(r"(?<![a-z])(?:cost|costs|price|pricing|how much|per month|a month|monthly|per hour|hourly|"
                        r"budget|bill)(?![a-z])|多少钱|费用|成本|价格|每月|一个月|月租|每小时|花多少")
_API_WORD = re.compile(r"(?<![a-z])api(?![a-z])|接口|调用|百炼|方舟")
_NVLINK = re.compile(r"nv\s*-?\s*link|nvl\s*桥|nvlink|桥接")
_NO_NVLINK = re.compile(r"(?:without|no|not|w/o|不用|不要|不需要|没有|无|不带|不走|不接)\s*(?:an?\s*|the\s*)?"
                        r"(?:nv\s*-?\s*link|桥接)")


def read_settings(t: Text, slots: Slots) -> None:
    """NVLink, used cards, offload, region, engine, ZeRO stage, LoRA rank, batch size, buy or rent."""
    s = t.s
    if _NO_NVLINK.search(s):
        slots.wants_nvlink = False
    elif _NVLINK.search(s):
        slots.wants_nvlink = True
    if _USED.search(s):
        slots.condition = "used"
    if _NO_OFFLOAD.search(s):  # "without offloading", "不要卸载": no CPU offload in the layout (False, not None)
        slots.offload = False
    elif _OFFLOAD.search(s):
        slots.offload = True
    if _HOME.search(s) or (_LOCALLY.search(s) and not _ORGANISATION.search(s)):
        slots.home = True
    if CODING_USE.search(s):
        slots.coding = True
    place = reading.region_from_places(s)
    if place:
        slots.region = place
    elif _REGION_CN.search(s):
        slots.region = "cn"
    elif _REGION_GLOBAL.search(s):
        slots.region = "global"
    for rx, engine in _ENGINES:
        if rx.search(s):
            slots.engine = engine
            break
    m = _ZERO.search(s)
    if m:
        slots.zero = int(m.group("n"))
    said = t.original.lower()  # the precision reader may have taken "8-bit" already
    found = next(((name, m) for name, rx in _OPTIMIZERS if (m := rx.search(said))), None)
    if found is not None:  # "8-bit Adam", "adamw_bnb_8bit", "8bit 优化器": its state per parameter
        slots.optimizer = found[0]
        rest = said[:found[1].start()] + " " + said[found[1].end():]
        if found[0] == "adamw8bit" and slots.weights in ("int8", "bnb-int8") and not re.search(r"int8|8[\s\-_]*(?:bit|位)", rest):
            slots.weights = None  # the 8 bits were the optimizer's, not the weights'
    m = _MFU.search(s)
    if m and 0 < float(m.group("a") or m.group("b")) <= 100:
        slots.mfu = float(m.group("a") or m.group("b")) / 100
    if slots.task in ("lora", "qlora"):
        m = _LORA_RANK.search(s)
        if m and 1 <= int(m.group("n")) <= 4096:
            slots.lora_rank = int(m.group("n"))
    for m in _BATCH.finditer(s):  # the micro-batch per GPU; a global batch comes from accumulation, not memory
        if _GLOBAL_BATCH.search(s[max(0, m.start() - 12):m.start()]):
            continue  # "global batch 64 and micro batch 4": the 4
        v = to_number(m.group("n"))
        if v and 1 <= v <= 100_000:
            slots.batch = int(v)
            break
    buy, rent = bool(_BUY.search(s)), bool(_RENT.search(s))
    # "host it on RunPod", "在 AutoDL 上跑": a cloud that rents cards, named as where the job runs, is renting; "在 AWS
    # 上跑，租还是买划算": renting there weighed against buying the same cards
    cloud = read_provider(s) if (not buy or rent) and _ON_CLOUD.search(s) else None
    on_cloud = cloud is not None and cloud not in API_ONLY and not _API_WORD.search(s)  # "用阿里云 API": its API
    if on_cloud:
        slots.rent_at = cloud
    rent = rent or (on_cloud and _COST_WORD.search(s) is not None)  # "what does hosting it on RunPod cost": renting
    if buy and rent:
        slots.buy_or_rent = "either"
    elif buy:
        slots.buy_or_rent = "buy"
    elif rent:
        slots.buy_or_rent = "rent"
