"""The n-gram bag beside the encoder: the graph computes what numpy fit, it survives save,
load and ONNX export, and its gate leans on it only where training saw the row."""

import numpy as np
import onnxruntime as ort
import pytest
import torch
from transformers import BertConfig

from ml_assets.training.model import MultiTaskModel
from ml_assets.training.ngram_bag import (
    MERCHANT_ROW_CAP,
    PRIME,
    SHARPNESS,
    SPACE,
    NgramBag,
    bag_logprobs_numpy,
    char_keys_numpy,
    char_table,
    choose_gates,
    coverage_numpy,
    fit_bag,
    fit_idf,
    gate_weights,
    merchant_row_weights,
    ngram_keys_numpy,
    piece_texts,
)

VOCAB, BUCKETS, PAD = 60, 64, 0
HEADS = {"category": ["coffee", "fuel", "groceries"], "transaction_type": ["card", "refund"]}


def merchant_rows(seed: int, n: int) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
    """[CLS] merchant-word noise... [SEP]: the category follows the merchant's word (10-39 by
    thirds), the type a marker word (40: refund)."""
    rng = np.random.default_rng(seed)
    sequences, category, kind = [], [], []
    for _ in range(n):
        merchant = int(rng.integers(10, 40))
        refund = bool(rng.random() < 0.3)
        middle = [merchant, *rng.integers(41, 59, size=int(rng.integers(1, 5)))]
        if refund:
            middle.insert(int(rng.integers(0, len(middle) + 1)), 40)
        sequences.append(np.array([2, *middle, 3], dtype=np.int64))
        category.append((merchant - 10) // 10)
        kind.append(int(refund))
    return sequences, {"category": np.array(category), "transaction_type": np.array(kind)}


def padded(sequences):
    width = max(len(s) for s in sequences)
    ids = np.full((len(sequences), width), PAD, dtype=np.int64)
    for i, s in enumerate(sequences):
        ids[i, : len(s)] = s
    return torch.from_numpy(ids), torch.from_numpy((ids != PAD).astype(np.int64))


# token texts: 4 special ids, then words and continuations ("caf", "##e") with shared letters
PIECES = piece_texts(
    [None] * 4 + [f"##{chr(97 + i % 7)}{i % 5}" if i % 3 else f"caf{i % 11}" for i in range(4, 60)],
    special_ids=[0, 1, 2, 3],
)


def fitted_bag(pieces=PIECES):
    train, valid = merchant_rows(1, 400), merchant_rows(2, 120)
    sizes = {h: names for h, names in HEADS.items()}
    return fit_bag(
        train, VOCAB, BUCKETS, sizes, (10.0,), valid, -100, log=lambda _: None, pieces=pieces
    )


def test_token_texts_mark_where_a_word_starts():
    assert piece_texts(["[CLS]", "caf", "##e", "x"], special_ids=[0]) == [" ", " caf", "e", " x"]
    assert piece_texts(["<s>", "▁caf", "e"], special_ids=[0]) == [" ", " caf", "e"]


def test_byte_level_pieces_are_read_as_the_text_they_encode():
    """GPT-2-style BPE prints each byte as a character ("Ġ" a space, "Ð²" the two bytes of
    "в"); its vocabulary holds "##" pieces too, which make no WordPiece of it. Cyrillic then
    gets its Latin spelling, as in WordPiece vocabularies."""
    pieces = ["<s>", "tst", "Ġblu", "e", "ĠÐ²Ð°", "ÑĢÑĥÑģ", "##", "Ð"]
    assert piece_texts(pieces, special_ids=[0]) == [
        " ",
        "tst",
        " blu",
        "e",
        " va",
        "rus",
        "##",
        "Ð",
    ]


def char_wb_keys(text: str, code: dict[str, int], buckets: int) -> list[int]:
    """sklearn's char_wb 2-5-grams of ``text``, hashed as the bag hashes them (``code``: each
    character's code in the bag's table)."""
    from sklearn.feature_extraction.text import CountVectorizer

    analyzer = CountVectorizer(analyzer="char_wb", ngram_range=(2, 5), lowercase=False)
    keys = []
    for gram in analyzer.build_analyzer()(text):
        digest = len(gram)
        for c in gram:
            digest = (digest * PRIME + code[c]) % buckets
        keys.append(digest)
    return keys


def test_the_characters_of_the_words_are_tfidf_char_wb_n_grams_across_tokens():
    """The ids spell the words, a continuation glued to its word: the bag's character
    n-grams are char_wb's of the text, n-grams across a word's pieces included."""
    texts = piece_texts(["[CLS]", "[SEP]", "star", "##bu", "##cks", "café", "x"], [0, 1])
    ids = np.array([0, 2, 3, 4, 5, 6, 1])  # [CLS] star ##bu ##cks café x [SEP]
    codes, lengths = char_table(texts)
    code = {c: int(codes[t, i]) for t, text in enumerate(texts) for i, c in enumerate(text)}
    assert code[" "] == SPACE and len(set(code.values())) == len(code)  # one code a character
    got = char_keys_numpy(ids, (codes, lengths), BUCKETS)
    assert sorted(got) == sorted(char_wb_keys("starbucks café x", code, BUCKETS))


@pytest.mark.parametrize("pieces", [PIECES, None], ids=["char n-grams", "token n-grams only"])
def test_the_graph_hashes_weighs_and_covers_as_numpy_fit(pieces):
    bag, record = fitted_bag(pieces)
    assert bag.char_grams == (pieces is not None)
    sequences, _ = merchant_rows(3, 50)
    ids, mask = padded(sequences)
    keys, present = bag.keys(ids, mask)
    for i, s in enumerate(sequences):
        got = keys[i][present[i] > 0].numpy()
        assert sorted(got) == sorted(ngram_keys_numpy(s, VOCAB, BUCKETS))
    if pieces is not None:  # the graph spells each row's words as numpy does
        chars = char_table(pieces)
        char_keys, char_present = bag.char_keys(ids, mask)
        for i, s in enumerate(sequences):
            got = char_keys[i][char_present[i] > 0].numpy()
            assert sorted(got) == sorted(char_keys_numpy(s, chars, BUCKETS))
        characters = bag.table[VOCAB + 2 * BUCKETS :]
        assert characters.abs().sum() > 0  # the regression weighed them
    logprobs, coverage = bag(ids, mask)
    expected = bag_logprobs_numpy(bag, sequences)
    for i, head in enumerate(HEADS):
        np.testing.assert_allclose(logprobs[i].numpy(), expected[head], atol=1e-4)
    np.testing.assert_allclose(
        coverage.numpy(),
        coverage_numpy(bag, sequences),
        atol=1e-5,
    )
    # the merchant word decides it (its characters, hashed into 64 slots, blur it a little)
    assert record["valid_accuracy"]["category"] >= 0.9


def gated_argmax(encoder_logits, bag_logprobs, coverage, gate) -> np.ndarray:
    """Each row's label under ``gate`` = (threshold, low, high, token_share), as
    ``NgramBag.mix`` mixes, written out here apart from ``gate_weights``."""
    threshold, low, high, token_share = gate
    coverage = coverage.reshape(len(coverage), -1)
    signal = (
        coverage[:, 0]
        if not token_share
        else (1 - token_share) * coverage[:, 0] + (token_share * coverage[:, 1])
    )
    w = (low + (high - low) / (1 + np.exp(-SHARPNESS * (signal - threshold))))[:, None]
    encoder = torch.log_softmax(torch.from_numpy(encoder_logits), dim=-1).numpy()
    return ((1 - w) * encoder + w * bag_logprobs).argmax(axis=1)


def test_the_gate_leans_on_the_bag_only_where_training_saw_the_row():
    """An encoder right on unseen rows and wrong on seen ones: the chosen gate takes the bag
    on seen rows and leaves the unseen ones to the encoder."""
    n = 200
    labels = {"category": np.arange(n) % 3}
    heldout = np.arange(n) < n // 2
    coverage = np.where(heldout, 0.3, 1.0).astype(np.float32)
    right = np.eye(3)[labels["category"]] * 4.0
    encoder = {"category": np.where(heldout[:, None], right, np.roll(right, 1, axis=1))}
    bag = {
        "category": np.log(
            np.where(heldout[:, None], 1 / 3, 0.9 * np.eye(3)[labels["category"]] + 0.03)
        )
    }
    ((gate),) = choose_gates(encoder, bag, coverage, labels, heldout, -100).values()
    threshold, low, high, _ = gate
    mixed = gated_argmax(encoder["category"], bag["category"], coverage, gate)
    assert (mixed == labels["category"]).all()  # seen rows from the bag, unseen from the encoder
    assert low == 0.0 and 0.3 < threshold < 1.0


def test_the_gate_is_the_encoder_alone_where_every_mix_scores_below_it():
    """A bag confidently wrong on rows it has seen, beside an encoder right on them: any share
    of the bag costs validation rows, so the chosen gate gives it none."""
    n = 120
    labels = {"category": np.arange(n) % 3}
    heldout = np.arange(n) % 2 == 0
    coverage = np.ones(n, dtype=np.float32)
    encoder = {"category": np.eye(3)[labels["category"]] * 1.0}
    wrong = np.roll(np.eye(3)[labels["category"]], 1, axis=1)
    bag = {"category": np.log(0.96 * wrong + 0.02)}
    ((gate),) = choose_gates(encoder, bag, coverage, labels, heldout, -100).values()
    assert gate[1:3] == (0.0, 0.0)
    mixed = gated_argmax(encoder["category"], bag["category"], coverage, gate)
    assert (mixed == labels["category"]).all()


def new_city_rows(n: int = 200):
    """Seen merchants in new cities: most of their bigrams are new (coverage 0.5), their name's
    tokens known (1.0); held-out merchants 0.3 and 0.4. The encoder is sure and right on
    held-out rows, sure and wrong on seen ones; the bag the other way round, so no share of it
    for unseen rows pays."""
    labels = {"category": np.arange(n) % 3}
    heldout = np.arange(n) < n // 2
    coverage = np.stack([np.where(heldout, 0.3, 0.5), np.where(heldout, 0.4, 1.0)], axis=1).astype(
        np.float32
    )
    truth = np.eye(3)[labels["category"]]
    encoder = {"category": np.where(heldout[:, None], truth, np.roll(truth, 1, axis=1)) * 8.0}
    bag = {
        "category": np.log(
            np.where(heldout[:, None], 0.98 * np.roll(truth, 2, axis=1), 0.9 * truth)
            + np.where(heldout[:, None], 0.02 / 3, 0.1 / 3)
        )
    }
    return encoder, bag, coverage, labels, heldout


def test_the_gate_reads_known_tokens_where_a_seen_merchant_has_new_bigrams():
    """Bigram coverage alone cannot tell a known merchant in a new city (0.5) from a new one
    (0.3) above the lowest threshold; the single tokens' coverage averaged in can, and the
    valid rows choose it."""
    encoder, bag, coverage, labels, heldout = new_city_rows()
    ((bigrams_only),) = choose_gates(
        encoder, bag, coverage, labels, heldout, -100, token_shares=(0.0,)
    ).values()
    assert bigrams_only[3] == 0.0
    only = gated_argmax(encoder["category"], bag["category"], coverage, bigrams_only)
    assert (only[~heldout] != labels["category"][~heldout]).any()
    ((gate),) = choose_gates(encoder, bag, coverage, labels, heldout, -100).values()
    assert gate[1] == 0.0 and gate[3] > 0.0
    mixed = gated_argmax(encoder["category"], bag["category"], coverage, gate)
    assert (mixed == labels["category"]).all()
    np.testing.assert_allclose(
        gate_weights(coverage, gate),
        gate[1]
        + (gate[2] - gate[1]) / (1 + np.exp(-SHARPNESS * (0.5 * coverage.sum(1) - gate[0]))),
        rtol=1e-6,
    )


def test_the_token_share_is_not_searched_where_the_bag_carries_unseen_rows():
    """Where a share of the bag for unseen rows is taken (the bag right on every row, the
    encoder wrong on all), the gate reads bigram coverage alone: known words of an unseen
    merchant would blur the line between the two shares."""
    encoder, bag, coverage, labels, heldout = new_city_rows()
    truth = np.eye(3)[labels["category"]]
    encoder = {"category": np.roll(truth, 1, axis=1) * 4.0}
    bag = {"category": np.log(0.9 * truth + 0.03)}
    ((gate),) = choose_gates(encoder, bag, coverage, labels, heldout, -100).values()
    assert gate[1] > 0.0 and gate[3] == 0.0


def tiny_model() -> MultiTaskModel:
    config = BertConfig(
        vocab_size=VOCAB, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=32, pad_token_id=PAD,
    )  # fmt: skip
    torch.manual_seed(0)
    net = MultiTaskModel(config, HEADS, dropout=0.0, pooling="mean").eval()
    net.bag, _ = fitted_bag()
    net.bag.gate[:] = torch.tensor([0.5, 0.2, 0.9, 0.5])
    return net


def test_a_model_with_its_bag_survives_save_load_and_onnx_export(tmp_path):
    from ml_assets.training.export import export_onnx, quantize_embedding_rows, quantize_int8

    net = tiny_model()
    sequences, _ = merchant_rows(4, 16)
    ids, mask = padded(sequences)
    with torch.no_grad():
        expected = [t.numpy() for t in net(ids, mask)]
    net.save(tmp_path)
    loaded = MultiTaskModel.load(tmp_path)
    assert isinstance(loaded.bag, NgramBag)
    with torch.no_grad():
        for got, want in zip(loaded(ids, mask), expected, strict=True):
            np.testing.assert_allclose(got.numpy(), want, atol=1e-6)
    export_onnx(loaded, tmp_path / "model.onnx", opset=17)
    session = ort.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
    outputs = session.run(None, {"input_ids": ids.numpy(), "attention_mask": mask.numpy()})
    for got, want in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-4)
    # int8: the bag's weights, read by two Gathers (token and character n-grams), become int8
    # rows once; its int32 table of characters stays as it is
    quantize_int8(tmp_path / "model.onnx", tmp_path / "int8.onnx")
    assert quantize_embedding_rows(tmp_path / "int8.onnx", min_rows=VOCAB + 1) == ["bag.table"]
    session = ort.InferenceSession(str(tmp_path / "int8.onnx"), providers=["CPUExecutionProvider"])
    outputs = session.run(None, {"input_ids": ids.numpy(), "attention_mask": mask.numpy()})
    for got, want in zip(outputs, expected, strict=True):
        np.testing.assert_allclose(got, want, atol=0.1)
    loaded.use_bag = False  # the encoder alone: other outputs
    with torch.no_grad():
        assert not np.allclose(loaded(ids, mask)[0].numpy(), expected[0], atol=1e-3)


def test_the_amount_prior_corrects_the_encoders_share_of_the_mix(tmp_path):
    """With a bag and an amount prior, each row's output is ``(1 - w) * (encoder + amount
    terms) + w * bag``: a row the bag carries alone ignores the amount. PyTorch, the numpy
    shares ``attach_amount_prior`` chooses the weight on, and onnxruntime agree."""
    from ml_assets.core.serving.scoring import pad_batch
    from ml_assets.training.amount_fitting import encoder_shares
    from ml_assets.training.amount_prior import AmountPrior
    from ml_assets.training.export import export_onnx
    from ml_assets.training.finetune import predict_logits

    net = tiny_model()
    net.amount_prior = AmountPrior({h: len(n) for h, n in HEADS.items()})
    torch.manual_seed(1)
    net.amount_prior.table.copy_(torch.randn(net.amount_prior.table.shape) * 3)
    net.amount_prior.weight.fill_(1.0)
    sequences, _ = merchant_rows(5, 12)
    amounts = np.linspace(-500.0, 900.0, len(sequences)).astype(np.float32)
    ids, mask = padded(sequences)
    cpu = torch.device("cpu")
    got = predict_logits(net, sequences, 5, PAD, cpu, amounts)
    net.use_bag = False
    encoder = predict_logits(net, sequences, 5, PAD, cpu)
    net.use_bag = True
    bag = bag_logprobs_numpy(net.bag, sequences)
    with torch.no_grad():
        terms = [t.numpy() for t in net.amount_prior(torch.from_numpy(amounts))]
    for i, (head, share) in enumerate(zip(HEADS, encoder_shares(net, sequences), strict=True)):
        logprobs = torch.log_softmax(torch.from_numpy(encoder[head]), -1).numpy()
        want = share[:, None] * (logprobs + terms[i]) + (1 - share[:, None]) * bag[head]
        np.testing.assert_allclose(got[head], want, atol=1e-4)
    net.bag.gate[:] = torch.tensor([0.5, 1.0, 1.0, 0.0])  # the bag alone: the amount is moot
    np.testing.assert_allclose(
        predict_logits(net, sequences, 5, PAD, cpu, amounts)["category"],
        predict_logits(net, sequences, 5, PAD, cpu)["category"],
        atol=1e-6,
    )
    net.bag.gate[:] = torch.tensor([0.5, 0.2, 0.9, 0.5])
    export_onnx(net, tmp_path / "model.onnx", opset=17)
    session = ort.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
    outputs = session.run(None, pad_batch(sequences, PAD, amounts))
    for output, head in zip(outputs, HEADS, strict=True):
        np.testing.assert_allclose(output, got[head], atol=1e-4)


def test_a_model_saved_with_three_gate_fields_loads_reading_bigram_coverage(tmp_path):
    """A model saved before the gate had its token share (three fields per head) loads with
    share 0: the mix its files describe."""
    from safetensors.torch import load_file, save_file

    net = tiny_model()
    net.bag.gate[:, 3] = 0.0
    sequences, _ = merchant_rows(4, 16)
    ids, mask = padded(sequences)
    with torch.no_grad():
        expected = [t.numpy() for t in net(ids, mask)]
    net.save(tmp_path)
    state = load_file(str(tmp_path / "model.safetensors"))
    state["bag.gate"] = state["bag.gate"][:, :3].contiguous()
    save_file(state, str(tmp_path / "model.safetensors"))
    loaded = MultiTaskModel.load(tmp_path)
    assert loaded.bag.gate[:, 3].abs().sum() == 0
    with torch.no_grad():
        for want, got in zip(expected, loaded(ids, mask), strict=True):
            np.testing.assert_allclose(got.numpy(), want, atol=1e-6)


def test_unseen_rows_get_a_share_of_the_bag_only_for_a_clear_gain():
    """Where the encoder has nothing to say about unseen merchants and the bag does, the bag
    gets a share of them; the first test's encoder, right on them, keeps them whole."""
    n = 200
    labels = {"category": np.arange(n) % 3}
    heldout = np.arange(n) < n // 2
    coverage = np.where(heldout, 0.3, 1.0).astype(np.float32)
    clueless = np.zeros((n, 3))
    clueless[np.arange(n), (labels["category"] + 1) % 3] = 0.01  # a hair wrong everywhere
    bag = {"category": np.log(0.8 * np.eye(3)[labels["category"]] + 0.2 / 3)}
    ((_, low, _, _),) = choose_gates(
        {"category": clueless}, bag, coverage, labels, heldout, -100
    ).values()
    assert low > 0.0


def test_a_tokenizer_folder_gives_each_id_its_text_in_a_word(tiny_tokenizer_dir):
    """The training job reads the pieces from the run's tokenizer folder: a continuation loses
    its "##", a word start gains a space, a special token is a word break."""
    from ml_assets.core.text.tokenizer_folder import FolderTokenizer
    from ml_assets.training.bag_fitting import token_texts

    tokenizer = FolderTokenizer.load(tiny_tokenizer_dir)
    texts = token_texts(tiny_tokenizer_dir, len(tokenizer))
    assert len(texts) == len(tokenizer)
    assert all(texts[i] == " " for i in tokenizer.all_special_ids)
    (ids,) = tokenizer.encode(["starbucks coffee"], 32)
    spelled = "".join(texts[i] for i in ids)
    assert spelled == "  starbucks coffee "  # [CLS] starbucks coffee [SEP]


def test_one_big_held_out_merchant_does_not_choose_the_gate_alone():
    """Held-out validation rows: one chain with 100 rows the bag gets right and the encoder
    wrong, ten merchants with 5 rows each the other way round. Every row alike, the chain gives
    unseen rows a share of the bag; a merchant counting as at most ``MERCHANT_ROW_CAP`` rows,
    the ten merchants keep them with the encoder."""
    big, small = 100, 10 * 5
    seen = 60
    n = big + small + seen
    labels = {"category": np.arange(n) % 3}
    heldout = np.arange(n) < big + small
    merchants = np.array(
        ["chain"] * big
        + [f"shop{i // 5}" for i in range(small)]
        + [f"seen{i}" for i in range(seen)]
    )
    coverage = np.where(heldout, 0.3, 1.0).astype(np.float32)
    truth = np.eye(3)[labels["category"]]
    wrong = np.roll(truth, 1, axis=1)
    bag_right = np.arange(n) < big  # the chain, and the bag's memory on seen rows
    bag_right |= ~heldout
    encoder = {"category": np.where(bag_right[:, None] & heldout[:, None], wrong, truth)}
    bag = {"category": np.log(np.where(bag_right[:, None], truth, wrong) * 0.97 + 0.01)}
    args = (encoder, bag, coverage, labels, heldout, -100)
    ((_, uncapped_low, _, _),) = choose_gates(*args).values()
    ((_, capped_low, _, _),) = choose_gates(*args, merchants=merchants).values()
    assert uncapped_low > 0.0 and capped_low == 0.0
    weights = merchant_row_weights(merchants)
    assert weights[0] == MERCHANT_ROW_CAP / big and (weights[big:] == 1.0).all()


def test_the_seen_and_heldout_score_caps_a_merchant_and_weighs_the_slices_alike():
    """Held-out rows: a chain of 100 rows all right, ten shops of 5 rows all wrong; seen rows
    all right. The chain counts as ``MERCHANT_ROW_CAP`` rows, and the seen slice as much as the
    held-out one, whatever their sizes; an empty slice leaves the other alone."""
    from ml_assets.training.ngram_bag import seen_and_heldout_accuracy

    merchants = np.array(["chain"] * 100 + [f"shop{i // 5}" for i in range(50)] + ["seen"] * 7)
    heldout = np.arange(len(merchants)) < 150
    right = (np.arange(len(merchants)) < 100) | ~heldout
    keep = np.ones(len(merchants), dtype=bool)
    weights = merchant_row_weights(merchants)
    heldout_accuracy = MERCHANT_ROW_CAP / (MERCHANT_ROW_CAP + 50)
    score = seen_and_heldout_accuracy(right, keep, heldout, weights)
    assert score == pytest.approx((heldout_accuracy + 1.0) / 2)
    only_heldout = seen_and_heldout_accuracy(right, keep & heldout, heldout, weights)
    assert only_heldout == pytest.approx(heldout_accuracy)


def test_unseen_rows_get_a_share_of_the_bag_only_where_many_merchants_agree():
    """The bag right where the encoder is wrong on 5 of 50 held-out validation rows: all 5 from
    one merchant is a gain one merchant could have made by chance (the gate keeps the unseen
    rows with the encoder); one row from each of 5 merchants is not (they get a share)."""
    held, seen = 50, 30
    n = held + seen
    labels = {"category": np.arange(n) % 3}
    heldout = np.arange(n) < held
    merchants = np.array([f"shop{i // 5}" for i in range(held)] + [f"seen{i}" for i in range(seen)])
    coverage = np.where(heldout, 0.3, 1.0).astype(np.float32)
    truth = np.eye(3)[labels["category"]]

    def low_chosen(bag_right: np.ndarray) -> float:
        wrong = np.roll(truth, 1, axis=1)
        encoder = np.where(bag_right[:, None], wrong, truth) * 2.0
        bag = np.log(np.where(bag_right[:, None], 0.9 * truth + 0.05, 1 / 3))
        gate = choose_gates(
            {"category": encoder}, {"category": bag}, coverage, labels, heldout, -100, merchants
        )
        return gate["category"][1]

    one_merchant = np.arange(n) < 5
    five_merchants = (np.arange(n) < held) & (np.arange(n) % 10 == 0)
    assert low_chosen(one_merchant) == 0.0
    assert low_chosen(five_merchants) > 0.0


def test_the_bag_remembers_a_merchant_seen_in_a_single_training_row():
    # 8 merchants, each one row in training: a pair of words (ids 4-9) no other row has,
    # its category the XOR of the words' parities, which no sum of a score per word can give.
    # Only the pair's bi- and trigrams tell it, each in a single training row
    pairs = [(a, b) for a in (4, 5, 8, 9) for b in (6, 7)]
    once = [np.array([2, a, b, 3], dtype=np.int64) for a, b in pairs]
    labels = np.array([int(a % 2 != b % 2) for a, b in pairs])
    sequences, train_labels = merchant_rows(1, 400)
    train = (
        sequences + once,
        {
            "category": np.concatenate([train_labels["category"], labels]),
            "transaction_type": np.concatenate([train_labels["transaction_type"], [0] * 8]),
        },
    )
    buckets = 1 << 16  # no hash collision among these n-grams (checked below)
    _, documents = fit_idf(train[0], VOCAB, buckets)
    for row in once:  # keys: 4 tokens, bigrams ([CLS] a, a b, b [SEP]), trigrams
        keys = ngram_keys_numpy(row, VOCAB, buckets)
        assert documents[keys[[5, 7, 8]]].tolist() == [1, 1, 1]
    bag, _ = fit_bag(train, VOCAB, buckets, HEADS, (10.0,), merchant_rows(2, 120), -100,
                     log=lambda _: None)  # fmt: skip
    predicted = bag_logprobs_numpy(bag, once)["category"].argmax(axis=1)
    assert predicted.tolist() == labels.tolist()


def test_a_merchant_seen_romanized_is_known_in_its_own_script():
    # 30 merchants, one Cyrillic word each (letters spelled by one Latin letter), category by
    # thirds. Training sees the romanized spellings, the test rows the Cyrillic ones: with no
    # character in common, only the bag's Latin spelling of the letters can tell them
    rng = np.random.default_rng(0)
    letters = dict(zip("абвгдклмнопрст", "abvgdklmnoprst", strict=True))
    words = ["".join(rng.choice(list(letters), size=6)) for _ in range(30)]
    romanized = ["".join(letters[c] for c in word) for word in words]
    pieces = piece_texts(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *romanized, *words], [0, 1, 2, 3])
    vocab = len(pieces)

    def rows(first_id: int, n: int, seed: int):
        pick = np.random.default_rng(seed).integers(0, 30, size=n)
        return [np.array([2, first_id + m, 3], dtype=np.int64) for m in pick], pick // 10

    train, train_y = rows(4, 300, 1)
    valid, valid_y = rows(4, 90, 2)
    test, test_y = rows(4 + 30, 90, 3)
    bag, _ = fit_bag((train, {"category": train_y}), vocab, BUCKETS,
                     {"category": HEADS["category"]}, (10.0,), (valid, {"category": valid_y}),
                     -100, log=lambda _: None, pieces=pieces)  # fmt: skip
    predicted = bag_logprobs_numpy(bag, test)["category"].argmax(axis=1)
    assert (predicted == test_y).mean() > 0.9
