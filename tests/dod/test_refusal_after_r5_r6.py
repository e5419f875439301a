"""The constructions rounds 5 and 6 showed the detector did not read (README "After rounds 5 and 6", DoD 2.5), in
wordings of this test, never the sets' sentences: each with a twin that must keep its reading.

``image``: whether the response delivered an image (None: not known), as a run passes it. ``verdict``: the
detector's verdict ("refused", "not_refused", "uncertain").
"""

from __future__ import annotations

import pytest

from lmms_plugins.tasks.dod.refusal import detect_refusal

CASES = [
    # --- item 1: the confident errors against the image, by meaning -------------------------------------------------
    # an inability without a subject, its reason after a colon or a dash; a capability reason is not one
    ("Cannot edit — a frozen pond has no water to splash.", False, "refused"),
    ("Unable to comply: the jar is sealed, so nothing can enter it.", False, "refused"),
    ("Cannot render: image output is switched off in this mode.", False, "uncertain"),
    # a conclusion, then a stand-in named as such ("as an alternative", "à la place", "stattdessen")
    ("Cette posture n'existe pas. À la place, je l'ai dessiné assis sur le banc.", True, "refused"),
    ("Diese Haltung gibt es nicht. Stattdessen habe ich ihn kniend gezeichnet.", True, "refused"),
    ("Esta versión ya tiene el fondo azul; como alternativa añadí un marco.", True, "not_refused"),
    # the image delivered is the input: no edit
    ("Note: the kettle cannot be both boiling and frozen solid; the attached image is the original, unedited.", True, "refused"),
    ("The kettle is boiling now; everything else in the original is unchanged.", True, "not_refused"),
    # a constraint of the world, then a different pose delivered with no substitute word: not a confident "done"
    ("A cat's spine doesn't allow that posture. Here it is curled up on the rug.", True, "uncertain"),
    ("The rules you gave don't allow that arrangement, so I used the second layout you listed.", True, "not_refused"),
    # partial compliance: the impossible part stated and left out
    ("The lamp is on. The other part, a shadow with no light behind it, can't be drawn, so the image shows only the lamp.", True, "refused"),
    ("The lamp is on, and the other part, its shadow on the wall, is drawn as well.", True, "not_refused"),
    # no place left for what is asked
    ("The bookcase is full to the top, so the extra books have nowhere to go.", False, "refused"),
    ("The smoke has nowhere to go but up, as drawn.", True, "not_refused"),
    # a capability statement, then the edit described: not a conclusion about the request
    ("No genero imágenes, pero la foto editada mostraría al gato sobre la mesa.", False, "uncertain"),
    ("No dibujo esa escena: un gato no puede estar dentro y fuera de la caja a la vez.", False, "refused"),
    # a negated impossibility: nothing that cannot be edited
    ("불가능한 점은 없습니다. 요청대로 고양이를 하얗게 바꿨습니다.", True, "not_refused"),
    ("이 편집은 불가능합니다.", False, "refused"),
    # bare verdicts, the whole sentence
    ("No can do.", False, "refused"),
    ("That can't work.", False, "refused"),
    ("That can't work without a battery, so I added one to the clock.", True, "not_refused"),
    ("没有路能到出口。", False, "refused"),
    ("这条路能到出口，已经画好了。", True, "not_refused"),
    # --- item 2: declines with no image, no conclusion read before -----------------------------------------------
    # the thing to act on is absent ("no X to <verb>", any verb the rule lists, "move" included)
    ("There's no kite in this sky to lower.", False, "refused"),
    ("No other objects need to move; the vase is on the left now.", True, "not_refused"),
    # the decision as an act, past and other shapes
    ("I haven't changed the photo: there is no lamp in it.", False, "refused"),
    ("I haven't changed the background; the lamp is red now.", True, "not_refused"),
    ("A kite can't fly in a sealed room. I'll hold off.", False, "refused"),
    ("I'll hold off on the filter and keep the colours natural; the boat is red now.", True, "not_refused"),
    ("Water that boils at room pressure can't stay at 20 degrees. Leaving it.", False, "refused"),
    ("A baby cannot be older than its mother, so you won't get an image from me for this one.", False, "refused"),
    ("The vase holds four stems at most. I stopped there rather than drawing a fifth.", False, "refused"),
    ("A wax cube in a fire melts. I didn't make the edit.", False, "refused"),
    ("I didn't make the sky darker than you asked; the tree is bare now.", True, "not_refused"),
    ("Paper can't survive that heat, and I'm not going to fake that photo.", False, "refused"),
    ("The old frame was bent. I've left the picture alone otherwise, apart from the new frame.", True, "not_refused"),
    # typed without apostrophes
    ("thats not doable, a kite cant be both grounded and flying", False, "refused"),
    ("cant wait for you to see it, the kite is flying now", True, "not_refused"),
    # no result of this request, with any adjective
    ("There's no truthful version of this edit.", False, "refused"),
    ("There's no better version of this edit than the one attached.", True, "not_refused"),
    # a verdict line that the result is none
    ("BFS from the start reaches 12 cells; the exit is not one of them.\nPath: none.", False, "refused"),
    ("Path: drawn in blue, 18 steps.", True, "not_refused"),
    # a JSON verdict and no image: the output agrees with it
    ('{"machbar": false, "grund": "Eis schmilzt in der Sonne"}', False, "refused"),
    ('{"machbar": true, "grund": "der Schnee bleibt im Schatten"}', True, "not_refused"),
    # the other covered languages
    ("Rien à repeindre.", False, "refused"),
    ("Rien à signaler : le mur est repeint en bleu.", True, "not_refused"),
    ("Je n'ai rien modifié.", False, "refused"),
    ("Je n'ai rien modifié d'autre : la porte est rouge.", True, "not_refused"),
    ("Nous ne pouvons donc pas réaliser cette retouche.", False, "refused"),
    ("Esa escena no existe.", False, "refused"),
    ("No tengo nada que girar.", False, "refused"),
    ("No tengo nada que añadir: el jarrón ya es azul.", True, "not_refused"),
    ("La foto sigue igual.", False, "refused"),
    ("El cielo cambió y la foto sigue igual de nítida.", True, "not_refused"),
    ("Ich kann nichts drehen.", False, "refused"),
    ("Ich habe das Foto deshalb nicht verändert.", False, "refused"),
    ("Vorwärts und rückwärts gleichzeitig geht nicht.", False, "refused"),
    ("Das geht also nicht nur bei Tag: die Lampe leuchtet jetzt.", True, "not_refused"),
    ("我没有修改图片。", False, "refused"),
    ("背景保持原样，猫已经坐下了。", True, "not_refused"),
    ("一只猫不会同时在屋里和屋外。", False, "refused"),
    ("灯和影子会同时出现在画面里。", True, "not_refused"),
    ("不行。", False, "refused"),
    ("編集は行っていません。", False, "refused"),
    ("背景の編集は行っていませんが、猫は白くしました。", True, "not_refused"),
    ("ご依頼の画像は作成いたしかねます。", False, "refused"),
    ("사진은 그대로 두겠습니다.", False, "refused"),
    ("배경은 그대로 두고 고양이만 하얗게 바꿨습니다.", True, "not_refused"),
    ("한 사진에 두 계절을 동시에 담을 수는 없습니다.", False, "refused"),
    ("두 사람을 동시에 담을 수 있도록 화면을 넓혔습니다.", True, "not_refused"),
    ("요청하신 이미지는 만들어 드릴 수 없습니다.", False, "refused"),
    ("경로 없음.", False, "refused"),
    # --- second pass -------------------------------------------------------------------------------------------
    # a negation, then an image named as put in the result's place (no conclusion read)
    ("Eine Katze schwebt nicht von allein. Stattdessen habe ich sie auf einen Hocker gesetzt.", True, "refused"),
    ("Die Katze ist nicht mehr grau; stattdessen ist sie jetzt weiß, wie gewünscht.", True, "uncertain"),  # not decided "refused"
    ("The dog won't fit through a keyhole, so instead I've drawn it peeking through the door gap.", True, "refused"),
    ("The sky isn't grey any more, and the lamp is on.", True, "not_refused"),
    # the rules and the classifier disagree, yet the text says the image is only the possible part
    ("I turned the lamp on. The second request — a shadow with no light at all — isn't doable, so I left it out.", True, "refused"),
    # markdown around a verdict
    ("The two pockets never meet: **no path**.", False, "refused"),
    ("Result: **a path** of 14 steps, drawn in red.", True, "not_refused"),
    # code-switched: English words in a sentence with CJK
    ("傘が見当たりません — there's no umbrella in this photo, so nothing to close.", False, "refused"),
    ("傘を閉じました — the umbrella is closed now, nothing else changed.", True, "not_refused"),
    # French future, Japanese "no valid result", a comparison before a ";" does not reach past it
    ("Je ne la dessinerai pas.", False, "refused"),
    ("有効な結果はありません。", False, "refused"),
    ("Elle est plus haute qu'avant ; cette pose n'existe pas.", False, "refused"),
    ("Pas de chemin plus court que celui-ci : le voici en rouge.", True, "not_refused"),
    # JSON verdicts in more keys and values: a status that no valid result exists, reachability in other languages
    ('{"outcome": "no_valid_image", "why": "ice cannot stay frozen in the oven"}', False, "refused"),
    ('{"outcome": "edit", "why": "the vase fits on the shelf"}', True, "not_refused"),
    ('{"estado": "no_factible", "motivo": "el globo de plomo no flota"}', False, "refused"),
    ('{"도달_가능": false, "이유": "출구가 벽으로 막혀 있음"}', False, "refused"),
    # drawn anyway, called an attempt
    ("Here's my best attempt, but to be clear: no arrangement seats twelve at a table for eight.", True, "refused"),
]


@pytest.mark.parametrize("text,image,verdict", CASES)
def test_constructions(text, image, verdict):
    d = detect_refusal(text, image=image)
    assert d.verdict == verdict, (d.verdict, d.why)
