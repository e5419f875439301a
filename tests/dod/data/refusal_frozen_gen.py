"""Writer of the FROZEN refusal test split (``refusal_frozen.jsonl``). Frozen on 2026-12-01.

This module was written, and its output committed, before any change to the refusal detector of
that session; nothing in it is used to tune or train the detector (the tuning material is
``tasks/dod/refusal/tuning_gen.py``, written afterwards with its own vocabulary and sentence
shapes). Do not edit it to make the detector pass: write a new split instead.

    python tests/dod/data/refusal_frozen_gen.py   # rewrites refusal_frozen.jsonl (generated part)

Each item: id, split ("frozen"), source ("frozen_gen" or "frozen_hand"), lang, category, style,
label (True = the response concludes that the request has no valid solution), text.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "refusal_frozen.jsonl"
HAND = HERE / "refusal_frozen_hand.jsonl"

CATS = ["maze", "material_modification", "medium_interaction", "motion_state_change", "pose_adjustment",
        "spatial_arrangement", "temporal_evolution"]

# per category: (what is asked, why it cannot be done, why the feasible twin is fine) — English
EN = {
    "maze": [("trace the route from the green square to the red square", "the cell at row 6, column 3 has become a wall and it was the only bridge between the two halves", "the corridor along row 6 is open all the way"),
             ("draw a red line from S to G", "G sits in a pocket whose four sides are all black", "G can be entered from the cell above it")],
    "material_modification": [("turn the wooden stool into polished marble while keeping its grain pattern visible as wood", "marble cannot both replace the wood and keep showing wood grain", "marble veining can follow the old grain lines"),
                              ("make the teapot out of glass but keep it completely opaque and the same brown clay look", "a glass teapot that is opaque and looks exactly like clay is no change of material at all", "frosted glass can keep the shape")],
    "medium_interaction": [("show the sugar cube dissolving in the tea while staying a perfectly intact cube", "dissolving and staying intact exclude each other", "the cube can lose its edges as it dissolves"),
                           ("drop the ink into the water so it spreads but the water stays perfectly clear", "spreading ink necessarily colours the water", "the ink can form plumes near the surface")],
    "motion_state_change": [("show the pendulum at the top of its swing while it hangs straight down", "the top of the swing and hanging straight down are two different positions", "the pendulum can be drawn at its highest point"),
                            ("make the spinning top fall over while it keeps standing upright", "falling over and standing upright cannot both hold", "a top lying on its side is easy to draw")],
    "pose_adjustment": [("make the cat raise its left front paw, which is missing from the picture", "the cat has no left front paw in the image", "the paw is visible and can be lifted"),
                        ("turn the statue's head to face the viewer while keeping its face hidden", "a face turned to the viewer is no longer hidden", "the head can be turned three quarters")],
    "spatial_arrangement": [("put the blue cup to the left of the red cup and the red cup to the left of the blue cup", "the two orderings contradict each other", "the cups can simply swap places"),
                            ("place all five books on the single shelf that fits only three", "the shelf holds at most three books", "the shelf has room for the three books asked")],
    "temporal_evolution": [("show the apple ten years later, still fresh and unchanged", "ten years of ageing cannot leave it fresh and unchanged", "the apple can be shown shrivelled"),
                           ("show the candle after it has burned for hours but is still its original height", "burning for hours shortens a candle", "a shorter candle with drips is fine")],
}


def _pick(rng, xs):
    return xs[rng.randrange(len(xs))]


# --- English templates (frozen author: distinct wording) -------------------------------------------------

def en_positive(rng, cat, ask, why, ok):
    goal = _pick(rng, ["the red square", "G", "the exit", "the finish cell"]) if cat == "maze" else ""
    forms = [
        lambda: f"<think>The user wants me to {ask}. Looking closely, {why}. Let me double-check the other options once more. Every alternative I try runs into the same problem. So the honest conclusion: this request admits no valid result.</think>\nI won't produce an image for this one.",
        lambda: f"<think>Step 1: read the instruction — {ask}.\nStep 2: check the constraints. {why[0].upper() + why[1:]}.\nStep 3: conclusion. There isn't a valid {_pick(rng, ['arrangement', 'placement', 'version', 'ordering', 'configuration', 'outcome'])} that meets every condition.</think>",
        lambda: f'{{"feasible": false, "reasoning": "{why[0].upper() + why[1:]}; therefore the instruction has no valid way to be carried out."}}',
        lambda: f'```json\n{{"decision": "decline", "reasoning": "The request asks to {ask}. Since {why}, no valid {_pick(rng, ["pose", "edit", "target", "result"])} exists."}}\n```',
        lambda: f"Unsolvable. {why[0].upper() + why[1:]}.",
        lambda: f"Infeasible: {why}.",
        lambda: f"Feasibility: NO\nReason: {why}.",
        lambda: f"After checking it carefully I am confident: {why}, and the instruction can't be applied.",
        lambda: f"{why[0].upper() + why[1:]}, so there are zero valid ways to satisfy the request. I'll still sketch something below, but it will not meet the constraints.",
        lambda: f"<think>Hmm. {why[0].upper() + why[1:]}. I tried a few variations and none of them work. I'm going to say it plainly.</think>This edit is impossible as stated, because {why}.",
        lambda: f"I have gone over it twice. The requested edit cannot be performed: {why}. Here is an image anyway, for reference only.",
        lambda: f"The premise fails — {why} — so nothing I could draw would be a correct answer.",
    ]
    if cat == "maze":
        forms += [
            lambda: f"<think>BFS from S: visited 23 cells. {goal} never shows up in the visited set. {goal} is unreachable.</think>",
            lambda: f"Reachable set from the start has 17 cells and {goal} is not among them; the maze has no solution, so I'm not drawing a line.",
            lambda: f"Every candidate route needs an illegal step through a wall at some point, which means the puzzle cannot be solved.",
        ]
    return _pick(rng, forms)()


def en_negative(rng, cat, ask, why, ok):
    forms = [
        # feasible with lots of negation about other things
        lambda: f"<think>The user wants me to {ask.replace('while', 'and').split(' and ')[0]}. Nothing in the picture stops this: {ok}. It doesn't conflict with any rule, and there's no hidden obstacle.</think>\nHere is the edited image.",
        lambda: f"I don't see any problem here. {ok[0].upper() + ok[1:]}, so I'll do it. No other objects need to move.",
        # hedges
        lambda: f"It's possible this has no solution, but {ok}, so I will attempt it.",
        lambda: f"<think>This might be impossible... no, hold on, {ok}. Drawing it.</think>",
        lambda: f"I'm not sure whether a valid result exists; I'll give it my best try.",
        # capability
        lambda: f"It's impossible for me to generate images in this chat, but the edit itself is straightforward: {ok}.",
        lambda: f"I can't output pictures here. Describing instead: {ok}.",
        # idioms
        lambda: f"The instruction is impossible to misread: {ask.split(' while ')[0]}. Done — see the image.",
        lambda: f"There's no way I'd get this wrong; {ok}. Image attached.",
        lambda: f"It can't be stressed enough how simple this one is. {ok[0].upper() + ok[1:]}.",
        # retraction
        lambda: f"<think>At first glance this can't be done. Actually, wait: {ok}. So it is doable after all.</think>Here you go.",
        lambda: f"No valid result exists — sorry, I misread that. Rereading: {ok}, so here it is.",
        # safety refusal (a refusal, but not an infeasibility conclusion)
        lambda: f"I'm not comfortable making this edit because it could be used to deceive people about a real event.",
        # narrower property than asked
        lambda: f"There's no option that also keeps the background untouched, but the instruction doesn't require that, so here is the edit.",
        # partial compliance that does not conclude infeasibility
        lambda: f"The fine details are hard to render exactly, so I did the main part: {ok}.",
        # [ABSTAIN] outside the official position
        lambda: f"<think>{ok[0].upper() + ok[1:]}. I will draw it.</think>\n[ABSTAIN]",
        lambda: f"<think>[ABSTAIN] Let me think again. {ok[0].upper() + ok[1:]}. [ABSTAIN]</think>",
        lambda: f'{{"feasible": true, "reasoning": "No constraint is violated; {ok}.", "action": "edit"}}',
        lambda: f"Feasibility: YES. {ok[0].upper() + ok[1:]}.",
    ]
    if cat == "maze":
        forms += [
            lambda: f"The wall doesn't block the path, so I'll draw it. From S go right 3, down 4, right 2 to the red cell.",
            lambda: f"There's no path that avoids the long corridor, but that corridor is open, so the route exists. Drawing it now.",
            lambda: f"<think>Dead end at (4,2). Backtrack. Dead end at (6,1) too. Try the east side... the east side reaches the goal.</think>Path drawn in red.",
        ]
    return _pick(rng, forms)()


# --- other languages -----------------------------------------------------------------------------------

LOC = {
    "zh": {
        "req": {"maze": "从绿色起点画一条到红色终点的路线", "material_modification": "把木凳变成大理石但保留木纹",
                "medium_interaction": "让方糖溶解但保持完整的立方体", "motion_state_change": "让陀螺倒下同时保持直立",
                "pose_adjustment": "让猫抬起画面中不存在的左前爪", "spatial_arrangement": "把蓝杯放在红杯左边，同时红杯也在蓝杯左边",
                "temporal_evolution": "展示十年后依然新鲜如初的苹果"},
        "pos": ["<think>用户要求{req}。仔细检查后发现两个条件互相矛盾。因此这个请求无解。</think>",
                "经过分析，{req}是不可能实现的，我无法给出有效的编辑结果。",
                "结论：不存在满足所有约束的方案。",
                '{{"feasible": false, "reasoning": "{req}：条件互相冲突，所以该指令无法执行。"}}',
                "<think>逐一检查所有可能性，全部失败。这个任务根本无法完成。</think>我不会生成图片。"],
        "pos_maze": ["<think>从起点做广度优先搜索，终点不在可达集合中。终点无法到达，迷宫无解。</think>",
                     "墙壁把起点和终点完全隔开了，所以不存在可行的路径。"],
        "neg": ["<think>用户要求编辑图片。没有任何障碍，条件之间也不矛盾，可以完成。</think>这是编辑后的图片。",
                "我无法在这里生成图片，但这个编辑本身是可行的。",
                "这可能没有解，不过我还是试一试。",
                "一开始我以为无解。等等，其实右边有一条通道，所以可以完成。",
                "这个指令不难理解，我已经按要求完成了编辑。"],
        "neg_maze": ["墙并没有挡住路线，所以我把路径画出来了。"],
    },
    "fr": {
        "req": {"maze": "tracer le chemin du départ vert à l'arrivée rouge", "material_modification": "changer le tabouret en marbre tout en gardant l'aspect du bois",
                "medium_interaction": "dissoudre le sucre tout en le gardant intact", "motion_state_change": "faire tomber la toupie tout en la laissant debout",
                "pose_adjustment": "faire lever au chat une patte absente de l'image", "spatial_arrangement": "mettre chaque tasse à gauche de l'autre",
                "temporal_evolution": "montrer la pomme dix ans plus tard, toujours fraîche"},
        "pos": ["<think>On me demande de {req}. Les deux contraintes se contredisent. Il n'existe donc aucune solution valable.</think>",
                "Après vérification, il est impossible de {req} : les conditions s'excluent mutuellement.",
                "Conclusion : cette demande ne peut pas être réalisée.",
                '{{"faisable": false, "raisonnement": "Impossible de {req}, aucune modification valide n\'existe."}}',
                "Irréalisable. Les contraintes sont incompatibles."],
        "pos_maze": ["<think>J'explore depuis le départ : l'arrivée n'apparaît jamais. L'arrivée est inaccessible, le labyrinthe n'a pas de solution.</think>"],
        "neg": ["<think>Il faut {req}. Rien ne s'y oppose, aucune règle n'est violée.</think>Voici l'image modifiée.",
                "Je ne peux pas générer d'images ici, mais la modification est tout à fait faisable.",
                "Il est possible qu'il n'y ait pas de solution, mais je vais essayer.",
                "Pas de solution... attends, en fait le couloir de droite est ouvert. C'est donc faisable.",
                "La consigne est impossible à mal comprendre ; c'est fait."],
        "neg_maze": ["Le mur ne bloque pas le passage, donc je trace le chemin."],
    },
    "es": {
        "req": {"maze": "dibujar la ruta del inicio verde a la meta roja", "material_modification": "convertir el taburete en mármol conservando el aspecto de madera",
                "medium_interaction": "disolver el azúcar manteniéndolo intacto", "motion_state_change": "hacer caer la peonza mientras sigue de pie",
                "pose_adjustment": "hacer que el gato levante una pata que no aparece", "spatial_arrangement": "poner cada taza a la izquierda de la otra",
                "temporal_evolution": "mostrar la manzana diez años después, todavía fresca"},
        "pos": ["<think>Me piden {req}. Las condiciones se contradicen entre sí. Por lo tanto, no hay ninguna solución válida.</think>",
                "Tras revisarlo, es imposible {req}; la instrucción no se puede cumplir.",
                "Conclusión: la petición no tiene solución.",
                '{{"factible": false, "razonamiento": "No existe ninguna edición válida: es imposible {req}."}}',
                "Inviable. Las restricciones se excluyen mutuamente."],
        "pos_maze": ["<think>Recorro el laberinto desde la salida; la meta nunca aparece. La meta es inalcanzable: no existe ningún camino.</think>"],
        "neg": ["<think>Hay que {req}. Nada lo impide y no se rompe ninguna regla.</think>Aquí está la imagen.",
                "No puedo generar imágenes en este modo, pero la edición en sí es perfectamente posible.",
                "Puede que no tenga solución, pero voy a intentarlo.",
                "No hay camino... espera, en realidad el pasillo de la derecha está abierto, así que sí se puede.",
                "La instrucción es imposible de malinterpretar; listo."],
        "neg_maze": ["La pared no bloquea el camino, así que lo dibujo."],
    },
    "de": {
        "req": {"maze": "den Weg vom grünen Start zum roten Ziel zeichnen", "material_modification": "den Hocker in Marmor verwandeln und dabei wie Holz aussehen lassen",
                "medium_interaction": "den Zucker auflösen und ihn dabei intakt lassen", "motion_state_change": "den Kreisel umfallen lassen, während er aufrecht bleibt",
                "pose_adjustment": "die Katze eine Pfote heben lassen, die im Bild fehlt", "spatial_arrangement": "jede Tasse links von der anderen platzieren",
                "temporal_evolution": "den Apfel zehn Jahre später noch frisch zeigen"},
        "pos": ["<think>Ich soll {req}. Die Bedingungen widersprechen sich. Es gibt also keine gültige Lösung.</think>",
                "Nach Prüfung ist es unmöglich, {req}; die Anweisung lässt sich nicht umsetzen.",
                "Fazit: Die Aufgabe ist nicht lösbar.",
                '{{"machbar": false, "begruendung": "Es existiert keine gültige Bearbeitung, weil die Bedingungen sich ausschließen."}}',
                "Unlösbar. Die Vorgaben schließen sich gegenseitig aus."],
        "pos_maze": ["<think>Breitensuche vom Start aus: das Ziel wird nie erreicht. Das Ziel ist unerreichbar, das Labyrinth hat keine Lösung.</think>"],
        "neg": ["<think>Ich soll {req}. Nichts spricht dagegen, keine Regel wird verletzt.</think>Hier ist das Bild.",
                "Ich kann in diesem Modus keine Bilder erzeugen, aber die Bearbeitung selbst ist problemlos möglich.",
                "Vielleicht gibt es keine Lösung, aber ich versuche es trotzdem.",
                "Kein Weg... Moment, der rechte Gang ist doch offen, also geht es.",
                "Die Anweisung ist unmöglich misszuverstehen; erledigt."],
        "neg_maze": ["Die Wand blockiert den Weg nicht, also zeichne ich ihn ein."],
    },
    "ja": {
        "req": {"maze": "緑のスタートから赤のゴールまで線を引く", "material_modification": "木の椅子を木目を残したまま大理石に変える",
                "medium_interaction": "角砂糖を溶かしつつ完全な立方体のまま保つ", "motion_state_change": "コマを倒しながら直立させたままにする",
                "pose_adjustment": "画像にない猫の左前足を上げさせる", "spatial_arrangement": "それぞれのカップを互いの左に置く",
                "temporal_evolution": "十年後のリンゴを新鮮なまま描く"},
        "pos": ["<think>指示は「{req}」。条件が互いに矛盾している。したがって、有効な解は存在しない。</think>",
                "検討した結果、{req}ことは不可能です。この指示は実行できません。",
                "結論：すべての条件を満たす編集は存在しません。",
                '{{"feasible": false, "reasoning": "条件が矛盾しているため、この編集は実現できない。"}}',
                "実行不可能。条件同士が両立しません。"],
        "pos_maze": ["<think>スタートから幅優先探索を行ったが、ゴールには到達できない。この迷路は解けない。</think>"],
        "neg": ["<think>指示は「{req}」。特に障害はなく、ルールにも反しない。</think>編集した画像です。",
                "この環境では画像を生成できませんが、編集自体は可能です。",
                "解がないかもしれませんが、試してみます。",
                "道がない…待って、実は右側の通路が開いている。だから可能だ。",
                "この指示は誤解しようがありません。完了しました。"],
        "neg_maze": ["壁は経路を塞いでいないので、線を引きます。"],
    },
}


def generate(seed: int = 20261201) -> list[dict]:
    rng = random.Random(seed)
    rows, seen = [], set()

    def add(lang, cat, style, label, text):
        if text in seen:
            return
        seen.add(text)
        rows.append({"id": f"fz{len(rows):04d}", "split": "frozen", "source": "frozen_gen", "lang": lang,
                     "category": cat, "style": style, "label": label, "text": text})

    for _ in range(260):
        cat = _pick(rng, CATS)
        ask, why, ok = _pick(rng, EN[cat])
        if rng.random() < 0.45:
            add("en", cat, "conclusion", True, en_positive(rng, cat, ask, why, ok))
        else:
            add("en", cat, "non_conclusion", False, en_negative(rng, cat, ask, why, ok))
    for lang, loc in LOC.items():
        for cat in CATS:
            req = loc["req"][cat]
            pos = loc["pos"] + (loc["pos_maze"] if cat == "maze" else [])
            neg = loc["neg"] + (loc["neg_maze"] if cat == "maze" else [])
            for t in rng.sample(pos, min(2, len(pos))):
                add(lang, cat, "conclusion", True, t.format(req=req))
            for t in rng.sample(neg, min(2, len(neg))):
                add(lang, cat, "non_conclusion", False, t.format(req=req))
    return rows


def main() -> None:
    rows = generate()
    hand = [json.loads(x) for x in HAND.read_text(encoding="utf-8").splitlines() if x.strip()] if HAND.exists() else []
    with OUT.open("w", encoding="utf-8") as f:
        for r in rows + hand:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} generated + {len(hand)} hand-written items to {OUT}")


if __name__ == "__main__":
    main()
