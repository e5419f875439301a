"""Writer of the refusal TUNING set (``tuning.jsonl``): material the classifier is trained on
and the rules are tuned on. It was written after the frozen test split
(``tests/dod/data/refusal_frozen.jsonl``) was committed, with its own phrase banks and sentence
shapes; nothing here is taken from the frozen split.

    python -m lmms_plugins.tasks.dod.refusal.tuning_gen     # rewrites tuning.jsonl

A response is assembled from parts: some neutral reasoning about the request (category-specific),
one *core* sentence that decides the label (a conclusion, or one of the look-alikes that are not
one: hedge, capability, idiom, retraction, safety, narrower property, local dead end, rule,
question, hypothetical, negations about other things, [ABSTAIN] out of place), an ending, and a
wrapper (plain, <think> block, JSON with a reasoning field, terse, Markdown). Each positive item
names its evidence sentence (an exact substring) so the classifier can learn on sentences.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().with_name("tuning.jsonl")
CATS = ["maze", "material_modification", "medium_interaction", "motion_state_change", "pose_adjustment",
        "spatial_arrangement", "temporal_evolution"]

# --- English ---------------------------------------------------------------------------------------------

EN_OBJ = {
    "maze": ["the exit tile", "the red target", "the finish", "cell E", "the goal square", "the magenta end", "B"],
    "material_modification": ["the bronze bust", "the leather sofa", "the ceramic mug", "the paper lantern", "the steel kettle"],
    "medium_interaction": ["the sponge", "the dye drop", "the salt", "the ice cube in the juice", "the smoke in the jar"],
    "motion_state_change": ["the swing", "the falling leaf", "the kite", "the rolling barrel", "the windmill"],
    "pose_adjustment": ["the dancer", "the giraffe", "the toy robot", "the seated man", "the parrot"],
    "spatial_arrangement": ["the three jars", "the chess pieces", "the stacked boxes", "the plates", "the picture frames"],
    "temporal_evolution": ["the banana", "the sandcastle", "the puppy", "the iron gate", "the ice sculpture"],
}
EN_BLOCKER = {
    "maze": ["a solid wall row splits the grid in two", "the only opening next to the target was filled in",
             "the target is fenced by walls on every side", "the bottleneck cell in column 7 turned black",
             "the region around the start is closed"],
    "material_modification": ["the new material and the required look rule each other out",
                              "it would have to be transparent and show no light through it",
                              "the instruction keeps the original surface while replacing it"],
    "medium_interaction": ["the liquid the instruction relies on is not in the scene",
                           "it must mix completely and also stay in a separate layer",
                           "absorbing the water and staying dry contradict one another"],
    "motion_state_change": ["it has to be motionless and in full motion in one frame",
                            "the object is described both mid-air and resting on the ground",
                            "the stated direction of motion is opposite to the required end state"],
    "pose_adjustment": ["the limb to be moved is absent from the photo", "facing both left and right at once is asked",
                        "the pose needs a joint bending the wrong way, which the constraints forbid"],
    "spatial_arrangement": ["the ordering constraints form a loop", "there are more items than slots",
                            "each object must be above the other"],
    "temporal_evolution": ["a long time must pass while nothing may change", "it must look older and brand new simultaneously",
                           "the later stage is required to precede the earlier one"],
}
EN_REASONING = {
    "maze": ["I'll scan the grid row by row.", "The start is the green tile in the upper left.", "Let me label the open cells.",
             "Moving east from the start, the corridor bends south.", "I'll run a flood fill from the start tile.",
             "Counting the black cells around the target: three so far.", "Row 4 is mostly black.",
             "Going down column 2 reaches a junction at row 5.", "The maze is 13 by 13 including the frame."],
    "_": ["First I'll restate what is being asked.", "The picture shows {o} in the middle of the frame.",
          "Let me consider the constraints one by one.", "The background should stay as it is.",
          "I should think about lighting and shadows too.", "Let me picture the final image.",
          "The instruction has two parts.", "Nothing else in the scene is mentioned.", "Let me reread the request."],
}
EN_POS = [  # conclusions: {b} = blocker, {o} = object
    "Given that {b}, no acceptable edit of {o} can exist.",
    "Because {b}, the request simply has no solution.",
    "{B}; consequently this instruction is unsatisfiable.",
    "The constraints on {o} cannot all be met, since {b}.",
    "So I have to conclude the task can't be done: {b}.",
    "Bottom line: impossible, because {b}.",
    "This is an impossible edit — {b}.",
    "{B}, which makes the requested change unachievable.",
    "There exists no configuration of {o} that fulfils every condition.",
    "No possible version of the picture satisfies the instruction, because {b}.",
    "It follows that no valid result can be produced: {b}.",
    "Since {b}, the instruction cannot be fulfilled.",
    "I conclude there are no valid placements for {o}.",
    "{B}, so there is not a single correct outcome.",
    "The request is infeasible as written because {b}.",
    "Therefore the edit to {o} is not possible under these rules.",
    "{B}. Hence there is nothing valid to draw.",
    "Verdict: not feasible — {b}.",
    "Result: impossible.",
    "Answer: No, this cannot be done.",
    "Feasible? No.",
    "{B}, and for that reason the instruction has no valid way to be executed.",
    "The two requirements contradict each other, so no valid image exists.",
    "{O} cannot be made to satisfy both conditions; the task is self-contradictory.",
    "I'm declining: {b}, so there is no legitimate way to perform the edit.",
    "Such an edit is out of the question because {b}.",
    "I cannot complete this edit because {b}.",
    "The asked-for state of {o} doesn't exist and the edit can't be applied.",
    "Not solvable.",
    "Infeasible.",
]
EN_POS_MAZE = [
    "{O} is completely walled in, so the maze has no solution.",
    "The start and {o} lie in different regions; there is no route between them.",
    "{O} can never be reached from the start.",
    "Flood fill finished without touching {o}: unreachable.",
    "Every branch from the start dead-ends before {o}, so no path exists.",
    "All routes out of the start region hit a wall, hence the maze is unsolvable.",
    "No sequence of legal moves connects the start to {o}.",
    "{O} is unreachable — the blocked bottleneck cuts the only corridor.",
    "Since {b}, the start can't reach {o} at all.",
    "No path leads from the green tile to {o}.",
]
EN_NEG = {  # look-alikes that are not a conclusion about the task
    "hedge": ["It could be that {o} can't be edited this way, but let me try.",
              "There may not be a perfect solution, though a close one is easy.",
              "Maybe the request is impossible; I'm not convinced either way, so I'll attempt it.",
              "I suspect the maze might be unsolvable, but I'll keep searching.",
              "This looks like it might have no valid answer at first sight; on closer inspection it is fine.",
              "Possibly no version is perfect, yet the main change is clear enough."],
    "hypothetical": ["If {b}, then the edit would be impossible; that is not the case here.",
                     "Had the instruction asked for both states at once, it would be infeasible.",
                     "Were {o} missing from the photo, I would have to decline.",
                     "In case no route exists, I would state so, but let me check first."],
    "capability": ["I can't create pictures in this conversation, only text.",
                   "Image generation is disabled for me right now, so I'll describe the change to {o}.",
                   "It isn't possible for me to output images here; the edit itself is simple though.",
                   "As a text model I'm unable to draw, but the solution is easy to describe."],
    "idiom": ["It's impossible to overlook {o} in this picture; it is right in the centre.",
              "You can't overstate how easy this one is.",
              "There's no way to get this wrong: just change {o} as asked.",
              "Impossible to say exactly how the fabric folds, so I approximated it.",
              "The detail on {o} is impossible to ignore, so I kept it."],
    "retraction": ["The edit to {o} looked impossible. Hmm, then again, the instruction allows a partial change, so it works.",
                   "No valid arrangement... no wait, swapping the last two items satisfies everything.",
                   "At first I thought {o} could not be reached. Looking again, the gap in row 3 lets me through.",
                   "I was about to say no solution exists, but I missed an opening on the right."],
    "safety": ["I won't make this edit of {o}; it could be used to harass someone.",
               "I'm declining because the result would violate the content policy.",
               "Sorry, editing a real person's photo this way goes against my guidelines."],
    "narrower": ["No arrangement keeps all items exactly the same size, but the instruction doesn't ask for that.",
                 "There's no route that passes through the top corridor, but the lower one reaches {o}.",
                 "There's no way to keep every highlight identical, which is fine; I changed {o}.",
                 "No pose matches the reference perfectly, but the requested one is easy."],
    "local": ["There's no path through the left half, so I go right instead.",
              "Moving north from (4,6) is impossible, so I turn east.",
              "This branch is a dead end; back to the junction.",
              "Cell (2,8) can't be reached from here, let me try another direction."],
    "rule": ["Walls can't be crossed and moves are only horizontal or vertical.",
             "The instruction says the background cannot be changed.",
             "The reminder says to state that no solution exists if that happens.",
             "Diagonal steps are not allowed by the rules."],
    "question": ["Is there really no way to do this?", "Could {o} be unreachable?", "Does a valid arrangement exist at all?"],
    "feasible_negation": ["Nothing blocks the change to {o}, and no constraint is broken.",
                          "The shadow doesn't need to move and {o} isn't hidden, so this is doable.",
                          "No wall stands between the start and {o}; I'll trace the line.",
                          "There's no conflict between the two requirements, so I'll edit {o}.",
                          "None of the other objects is affected, and there's no reason it can't be done.",
                          "It's not impossible at all: {o} just needs to be recoloured.",
                          "I don't see anything that prevents this edit.",
                          "The table isn't too small, so all items fit without overlap."],
    "partial": ["I kept most of the scene and adjusted {o}; the reflections are approximate.",
                "The fine texture was tricky, so I did my best on {o}.",
                "I could only partly match the lighting, but the main edit on {o} is done."],
    "plan": ["I'll edit {o} as requested and keep everything else unchanged.",
             "Path found: east 2, south 5, east 3 to {o}.",
             "The edit is clear: {o} changes and the rest stays.",
             "Done. {O} now matches the instruction."],
    "abstain_misplaced": ["[ABSTAIN] [ABSTAIN]", "I might output [ABSTAIN] if this were impossible, but it isn't."],
}
EN_END_POS = ["", "", "So I won't generate an image.", "I'll still draw my best attempt below.", "No image will be produced.",
              "Here is an image anyway, though it can't satisfy the constraints.", "Declining."]
EN_END_NEG = ["", "", "Here is the edited image.", "Image below.", "Drawing it now.", "<image>"]

# --- other languages: (positive cores, negative cores (class, text), reasoning, endings) --------------------

ML = {
    "zh": {
        "obj": {"maze": "终点", "material_modification": "铜像", "medium_interaction": "海绵", "motion_state_change": "秋千",
                "pose_adjustment": "舞者", "spatial_arrangement": "三个罐子", "temporal_evolution": "香蕉"},
        "pos": ["由于这两个要求相互排斥，{o}的这个编辑无法实现。", "综上，这个任务没有可行的方案。", "{o}被墙完全围住，根本到不了。",
                "所以答案是：不可能。", "这些约束自相矛盾，因此不存在符合要求的结果。", "判断：不可行。", "因此该指令无法执行，我不会生成图像。",
                "无论怎样调整{o}，都无法满足所有条件。"],
        "neg": [("hedge", "也许这个编辑做不到，但我先试试看。"), ("capability", "我目前没法生成图片，只能用文字描述。"),
                ("feasible_negation", "没有任何东西挡住{o}，也不违反规则，所以可以编辑。"), ("retraction", "看起来无解。等等，其实左边有个缺口，可以走通。"),
                ("hypothetical", "如果{o}不在图里，就无法完成了；但它在。"), ("plan", "我会修改{o}，其余保持不变。"),
                ("safety", "这个编辑可能被用来误导他人，违反了内容政策，我不能做。"), ("question", "真的没有办法吗？"),
                ("idiom", "这点不可能看错：{o}就在中间。")],
        "reason": ["先看一下图片。", "{o}位于画面中央。", "我逐条检查约束条件。", "背景需要保持不变。"],
        "end_pos": ["", "不生成图像。"], "end_neg": ["", "这是编辑后的图像。"],
    },
    "ja": {
        "obj": {"maze": "ゴール", "material_modification": "銅像", "medium_interaction": "スポンジ", "motion_state_change": "ブランコ",
                "pose_adjustment": "ダンサー", "spatial_arrangement": "三つの瓶", "temporal_evolution": "バナナ"},
        "pos": ["二つの条件が両立しないため、{o}の編集は実現できません。", "以上より、この課題には解がありません。", "{o}は壁に囲まれていて、到達できない。",
                "判定：実行不可能。", "どのように{o}を変えても、すべての条件を満たすことは不可能だ。", "この指示は矛盾しているので、編集は完了できません。"],
        "neg": [("hedge", "もしかすると不可能かもしれないが、試してみる。"), ("capability", "ここでは画像を生成できませんが、説明はできます。"),
                ("feasible_negation", "{o}を遮るものはなく、ルールにも反しないので編集します。"), ("retraction", "解けないように見える。いや、右側に通路がある。"),
                ("plan", "{o}だけを変更し、他はそのままにします。"), ("question", "本当に方法はないのだろうか？"),
                ("safety", "実在の人物の写真をこのように加工することはポリシーに反するため、お断りします。")],
        "reason": ["まず画像を確認する。", "{o}は中央にある。", "条件を一つずつ確認する。"],
        "end_pos": ["", "画像は生成しません。"], "end_neg": ["", "編集した画像です。"],
    },
    "fr": {
        "obj": {"maze": "la sortie", "material_modification": "le buste en bronze", "medium_interaction": "l'éponge", "motion_state_change": "la balançoire",
                "pose_adjustment": "la danseuse", "spatial_arrangement": "les trois bocaux", "temporal_evolution": "la banane"},
        "pos": ["Comme les deux exigences s'excluent, aucune version valable de l'image n'existe.", "Bref, la tâche est irréalisable.",
                "{O} est emmurée de tous côtés : aucun trajet ne permet de l'atteindre.", "Verdict : impossible.",
                "Les contraintes sont contradictoires, donc la modification ne peut pas être appliquée.",
                "Je dois conclure qu'il n'y a pas de solution à cette demande.", "Aucune disposition ne respecte toutes les conditions."],
        "neg": [("hedge", "Il se peut que ce soit impossible, mais j'essaie quand même."), ("capability", "Je ne peux pas produire d'images dans ce mode ; je décris la modification."),
                ("feasible_negation", "Rien ne bloque la modification de {o} et aucune règle n'est enfreinte."), ("retraction", "Cela semblait insoluble. En fait, un passage à droite est ouvert."),
                ("plan", "Je modifie {o} et je garde le reste identique."), ("question", "N'y a-t-il vraiment aucune solution ?"),
                ("idiom", "Impossible de rater {o} : il est au centre."), ("safety", "Je refuse cette retouche, elle pourrait servir à harceler quelqu'un.")],
        "reason": ["Je regarde d'abord l'image.", "{O} se trouve au centre.", "Je vérifie chaque contrainte."],
        "end_pos": ["", "Je ne génère pas d'image."], "end_neg": ["", "Voici l'image modifiée."],
    },
    "es": {
        "obj": {"maze": "la salida", "material_modification": "el busto de bronce", "medium_interaction": "la esponja", "motion_state_change": "el columpio",
                "pose_adjustment": "la bailarina", "spatial_arrangement": "los tres frascos", "temporal_evolution": "el plátano"},
        "pos": ["Como los dos requisitos se excluyen, no existe ninguna versión válida de la imagen.", "En resumen, la tarea es irrealizable.",
                "{O} está rodeada de muros: no hay ningún camino hasta ella.", "Veredicto: imposible.",
                "Las condiciones son contradictorias, así que la edición no se puede aplicar.", "Debo concluir que la petición no tiene solución.",
                "Ninguna disposición cumple todas las condiciones."],
        "neg": [("hedge", "Quizás sea imposible, pero lo intento de todos modos."), ("capability", "No puedo crear imágenes en este modo; describo el cambio."),
                ("feasible_negation", "Nada impide modificar {o} y no se rompe ninguna regla."), ("retraction", "Parecía imposible. Espera, hay un hueco a la derecha."),
                ("plan", "Modifico {o} y dejo lo demás igual."), ("question", "¿De verdad no hay ninguna solución?"),
                ("safety", "No haré esta edición porque podría usarse para acosar a alguien.")],
        "reason": ["Primero miro la imagen.", "{O} está en el centro.", "Reviso cada restricción."],
        "end_pos": ["", "No generaré ninguna imagen."], "end_neg": ["", "Aquí está la imagen editada."],
    },
    "de": {
        "obj": {"maze": "der Ausgang", "material_modification": "die Bronzebüste", "medium_interaction": "der Schwamm", "motion_state_change": "die Schaukel",
                "pose_adjustment": "die Tänzerin", "spatial_arrangement": "die drei Gläser", "temporal_evolution": "die Banane"},
        "pos": ["Da sich die beiden Anforderungen ausschließen, gibt es keine gültige Version des Bildes.", "Kurz gesagt: die Aufgabe ist undurchführbar.",
                "Der Ausgang ist rundum eingemauert; es gibt keinen Weg dorthin.", "Urteil: unmöglich.",
                "Die Bedingungen sind widersprüchlich, daher lässt sich die Bearbeitung nicht anwenden.", "Ich muss feststellen, dass die Anfrage nicht lösbar ist.",
                "Keine Anordnung erfüllt alle Bedingungen."],
        "neg": [("hedge", "Vielleicht ist es unmöglich, aber ich versuche es."), ("capability", "Ich kann in diesem Modus keine Bilder erstellen; ich beschreibe die Änderung."),
                ("feasible_negation", "Nichts verhindert die Änderung, und keine Regel wird verletzt."), ("retraction", "Es wirkte unlösbar. Moment, rechts ist doch eine Lücke."),
                ("plan", "Ich ändere nur das Objekt und lasse den Rest gleich."), ("question", "Gibt es wirklich keine Lösung?"),
                ("safety", "Diese Bearbeitung lehne ich ab, da sie zur Belästigung genutzt werden könnte.")],
        "reason": ["Zuerst sehe ich mir das Bild an.", "Das Objekt steht in der Mitte.", "Ich prüfe jede Bedingung."],
        "end_pos": ["", "Ich erzeuge kein Bild."], "end_neg": ["", "Hier ist das bearbeitete Bild."],
    },
}


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _fill(t: str, o: str, b: str) -> str:
    return t.format(o=o, O=_cap(o), b=b, B=_cap(b))


def _wrap(rng: random.Random, reasoning: list[str], core: str, end: str, label: bool, lang: str) -> tuple[str, str]:
    """(text, style). The core is kept verbatim so it stays an exact substring."""
    style = rng.choice(["plain", "think", "think", "think_long", "json", "terse", "markdown"])
    if style == "terse":
        return core if not end else f"{core} {end}", style
    if style == "json":
        key = rng.choice(["reasoning", "reasoning", "analysis", "explanation", "thought"])
        verdict = rng.choice([None, "feasible", "decision"])
        fields = []
        if verdict == "feasible":
            fields.append(f'"feasible": {"false" if label else "true"}')
        elif verdict == "decision":
            fields.append(f'"decision": "{"decline" if label else "edit"}"')
        body = " ".join(reasoning[-2:] + [core]).replace('"', "'")
        core = core.replace('"', "'")
        fields.insert(rng.randrange(len(fields) + 1), f'"{key}": "{body}"')
        text = "{" + ", ".join(fields) + "}"
        if rng.random() < 0.3:
            text = "```json\n" + text + "\n```"
        return text, style
    if style == "markdown":
        return "**Analysis**\n" + "\n".join(f"- {r}" for r in reasoning) + f"\n\n**Conclusion**\n{core}" + (f"\n\n{end}" if end else ""), style
    sep = " " if lang not in ("zh", "ja") else ""
    if style == "think_long":
        reasoning = reasoning * 3
    body = sep.join(reasoning + [core])
    if style == "plain":
        return body + (f"\n{end}" if end else ""), style
    return f"<think>\n{body}\n</think>\n{end}".rstrip(), style


def generate(seed: int = 7, n_en: int = 620, n_per_ml: int = 64) -> list[dict]:
    rng = random.Random(seed)
    rows: list[dict] = []
    seen: set[str] = set()

    def add(lang, cat, kind, label, text, style, evidence):
        if text in seen:
            return
        seen.add(text)
        assert not evidence or evidence in text
        rows.append({"id": f"tu{len(rows):04d}", "split": "tuning", "source": "tuning_gen", "lang": lang, "category": cat,
                     "style": style, "kind": kind, "label": label, "evidence": evidence, "text": text})

    for _ in range(n_en):
        cat = rng.choice(CATS)
        o, b = rng.choice(EN_OBJ[cat]), rng.choice(EN_BLOCKER[cat])
        pool = EN_REASONING["maze"] if cat == "maze" else EN_REASONING["_"]
        reasoning = [_fill(r, o, b) for r in rng.sample(pool, rng.randint(0, 4))]
        if rng.random() < 0.45:
            core = _fill(rng.choice(EN_POS + (EN_POS_MAZE * 2 if cat == "maze" else [])), o, b)
            text, style = _wrap(rng, reasoning, core, rng.choice(EN_END_POS), True, "en")
            evidence = core if core in text else ""
            add("en", cat, "conclusion", True, text, style, evidence)
        else:
            kind = rng.choice(list(EN_NEG))
            if kind in ("local",) and cat != "maze":
                kind = "feasible_negation"
            core = _fill(rng.choice(EN_NEG[kind]), o, b)
            if kind == "abstain_misplaced":
                text = f"<think>{' '.join(reasoning) or 'Checking the request.'} It can be done.</think>\n{core}"
                add("en", cat, kind, False, text, "think", "")
                continue
            text, style = _wrap(rng, reasoning, core, rng.choice(EN_END_NEG), False, "en")
            add("en", cat, kind, False, text, style, "")
    for lang, loc in ML.items():
        for _ in range(n_per_ml):
            cat = rng.choice(CATS)
            o = loc["obj"][cat]
            reasoning = [_fill(r, o, "") for r in rng.sample(loc["reason"], rng.randint(0, len(loc["reason"])))]
            if rng.random() < 0.45:
                core = _fill(rng.choice(loc["pos"]), o, "")
                text, style = _wrap(rng, reasoning, core, rng.choice(loc["end_pos"]), True, lang)
                add(lang, cat, "conclusion", True, text, style, core if core in text else "")
            else:
                kind, t = rng.choice(loc["neg"])
                core = _fill(t, o, "")
                text, style = _wrap(rng, reasoning, core, rng.choice(loc["end_neg"]), False, lang)
                add(lang, cat, kind, False, text, style, "")
    return rows


def main() -> None:
    rows = generate()
    with OUT.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} items to {OUT}")


if __name__ == "__main__":
    main()
