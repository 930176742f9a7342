package dev.sendlog.service.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The request hash is stored with every idempotency key for a day and compared on each replay, so a new version
 * must compute the same bytes for the same request as the one before it; otherwise a client's retry across an
 * upgrade would get 409 instead of its message. These vectors were computed by the first implementation
 * (canonical JSON of the content with keys sorted at every level, SHA-256): the first is the SHA-256 of
 * {@code {"body":"Hello","gateway":null,"metadata":null,"reference":null,"to":"+4915112345678"}}.
 *
 * <p>Two vectors changed, because the first implementation hashed them wrongly (issue 24): an explicit
 * {@code "gateway": null} was hashed as the gateway named {@code "null"} (so it conflicted with the same request
 * without the field), and numbers in metadata went through double ({@code 1e10} as {@code 1.0E10}, {@code -0.0} kept
 * its sign, long decimals rounded, so different requests hashed the same). They now hash as null and as the exact
 * number in the form jsonb stores. Every request without an explicit null gateway and without a non-integer number in
 * its metadata hashes as before ({@link #withoutDecimalsTheHashIsTheFirstVersionsHash}); a retry across the upgrade
 * of one with such a number gets 409 at worst, never another request's message.
 */
class RequestHashTest {
    private final SubmitParser parser = new SubmitParser(Set.of("sim", "smpp"), "^\\+[1-9][0-9]{6,14}$");

    private record Vector(String body, String sha256) {}

    private static final List<Vector> VECTORS = List.of(
            new Vector(
                    "{\"to\":\"+4915112345678\",\"body\":\"Hello\"}",
                    "313f9c02e3ae6badac14122423ba6a1165de8350687b3ab20d4eb6e1ddb8cfc4"),
            new Vector(
                    "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"order-1\",\"gateway\":\"smpp\"}",
                    "93de5f4e90c056cb0203f606ce49c5d0efd43f4cc6e84d5ed5932923e15d8bdb"),
            // The first version: 9523cef8e3a2fadd97ad3a4a9990756380650a33c5a2e70de29ea5fb529eb315 ("gateway":"null").
            new Vector(
                    "{\"gateway\":null,\"body\":\"Hello\",\"to\":\"+4915112345678\",\"reference\":\"\"}",
                    "48ee282c0ea73800eeee1d08baa324cbf13fb9c3aa110c804d3029bdea0e0e9f"),
            new Vector(
                    "{\"to\":\"+4915112345678\",\"body\":\"quote \\\" backslash \\\\ tab \\t line \\n \\u2028 é 😀 \\u0001\","
                            + "\"metadata\":null}",
                    "c8c39f4db4105953a6e659626a1d2d69dd46860f4ebf04bf88058c89c753e4b6"),
            new Vector(
                    "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"metadata\":{}}",
                    "823a714c75b0ad7f901a97d643b40cf58207b694ebe66237b38813f9567f71c3"),
            // The first version: fdeb23e9c2e38caa15c110377981de99ca037d756313c3d027faea413d8d477f (1.0E10, -0.0). Now
            // the SHA-256 of ..."metadata":{"a":12345678901234,"big":1234...890,"m":[],"z":{"b":"é\"","y":[1,2.5,0.0,
            // 10000000000,"x",{"c":null,"k":true}]}},"reference":"r",...
            new Vector(
                    "{\"metadata\":{\"z\":{\"y\":[1,2.5,-0.0,1e10,\"x\",{\"k\":true,\"c\":null}],\"b\":\"é\\\"\"},"
                            + "\"a\":12345678901234,\"big\":123456789012345678901234567890,\"m\":[]},"
                            + "\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\"}",
                    "3b5f22ade82e481a38e87ff510d77d701b9829a2c298b7fe3738f05950e68dce"));

    private byte[] hash(String body, String key) throws Exception {
        return parser.single(SubmitParser.read(body.getBytes(StandardCharsets.UTF_8)), key)
                .requestHash();
    }

    @Test
    void onlyAKeyedRequestIsHashedForNothingComparesAnUnkeyedOne() throws Exception {
        String body = "{\"to\":\"+4915112345678\",\"body\":\"Hello\"}";
        assertThat(hash(body, null)).isNull();
        assertThat(hash(body, "key")).hasSize(32);
    }

    @Test
    void aRequestHashesToTheSameBytesAsInTheFirstVersion() throws Exception {
        for (Vector v : VECTORS) {
            assertThat(HexFormat.of().formatHex(hash(v.body(), "key")))
                    .as(v.body())
                    .isEqualTo(v.sha256());
        }
    }

    @Test
    void theHashSeesEveryPartOfTheContentButNotTheKeyOrTheFieldOrder() throws Exception {
        String base =
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\",\"metadata\":{\"a\":1,\"b\":[1,2]}}";
        byte[] hash = hash(base, "one");
        assertThat(hash(base, "two")).isEqualTo(hash);
        assertThat(hash(
                        "{\"metadata\":{\"b\":[1,2],\"a\":1},\"reference\":\"r\",\"body\":\"Hello\",\"to\":\"+4915112345678\"}",
                        "one"))
                .isEqualTo(hash);
        assertThat(hash(
                        "{\"metadata\":{\"b\":[1,2],\"a\":1},\"reference\":\"r\",\"body\":\"Hello\",\"to\":\"+4915112345678\","
                                + "\"gateway\":null}",
                        "one"))
                .as("null is absent")
                .isEqualTo(hash);
        for (String changed : List.of(
                "{\"to\":\"+4915112345679\",\"body\":\"Hello\",\"reference\":\"r\",\"metadata\":{\"a\":1,\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello!\",\"reference\":\"r\",\"metadata\":{\"a\":1,\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"s\",\"metadata\":{\"a\":1,\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"metadata\":{\"a\":1,\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\",\"metadata\":{\"a\":1,\"b\":[2,1]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\",\"metadata\":{\"a\":2,\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\",\"metadata\":{\"a\":1.0,\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\",\"metadata\":{\"a\":\"1\",\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\"}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\",\"gateway\":\"smpp\","
                        + "\"metadata\":{\"a\":1,\"b\":[1,2]}}")) {
            assertThat(hash(changed, "one")).as(changed).isNotEqualTo(hash);
        }
    }

    /**
     * A priority is part of the request as the priority it means: {@code normal}, named or not, hashes as every request
     * did before priorities (so keys stored before them still replay), and {@code high} adds
     * {@code "priority":"high"} in its sorted place.
     */
    @Test
    void aNormalPriorityHashesAsNoPriorityAndHighAsAnotherRequest() throws Exception {
        String base = "{\"to\":\"+4915112345678\",\"body\":\"Hello\"";
        byte[] none = hash(base + "}", "k");
        assertThat(HexFormat.of().formatHex(none)).isEqualTo(VECTORS.getFirst().sha256());
        assertThat(hash(base + ",\"priority\":\"normal\"}", "k")).isEqualTo(none);
        assertThat(hash(base + ",\"priority\":null}", "k")).as("null is absent").isEqualTo(none);
        byte[] high = hash(base + ",\"priority\":\"high\"}", "k");
        assertThat(high)
                .isEqualTo(MessageDigest.getInstance("SHA-256")
                        .digest(("{\"body\":\"Hello\",\"gateway\":null,"
                                        + "\"metadata\":null,\"priority\":\"high\",\"reference\":null,\"to\":\"+4915112345678\"}")
                                .getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void numbersAreHashedAtTheirExactValue() throws Exception {
        String[][] different = {
            {"1e400", "2e400"},
            {"1e400", "\"Infinity\""},
            {"0.12345678901234567890", "0.12345678901234567891"},
            {"100", "100.0"},
            {"1.5", "1.50"},
            {"9007199254740993", "9007199254740992"},
            {"1e-400", "0"}
        };
        for (String[] pair : different) {
            assertThat(hash(metadata(pair[0]), "k"))
                    .as(pair[0] + " vs " + pair[1])
                    .isNotEqualTo(hash(metadata(pair[1]), "k"));
        }
        String[][] same = {{"1E+2", "100"}, {"1.0e2", "100"}, {"-0", "0"}, {"-0.0", "0.0"}, {"0.125e1", "1.25"}};
        for (String[] pair : same) {
            assertThat(hash(metadata(pair[0]), "k"))
                    .as(pair[0] + " is stored as " + pair[1])
                    .isEqualTo(hash(metadata(pair[1]), "k"));
        }
    }

    private static String metadata(String value) {
        return "{\"to\":\"+4915112345678\",\"body\":\"b\",\"metadata\":{\"n\":" + value + "}}";
    }

    /**
     * Random metadata of strings (every kind of character), integers, booleans, nulls, arrays and objects: hashed
     * exactly as the first version hashed it, so keys stored before the upgrade still replay.
     */
    @Test
    void withoutDecimalsTheHashIsTheFirstVersionsHash() throws Exception {
        SplittableRandom random = new SplittableRandom(24);
        ObjectMapper json = new ObjectMapper();
        for (int i = 0; i < 500; i++) {
            String metadata = json.writeValueAsString(randomValue(random, 0, true));
            String body = "{\"to\":\"+4915112345678\",\"body\":\"b" + i + "\",\"reference\":\"r\",\"metadata\":"
                    + metadata + "}";
            assertThat(HexFormat.of().formatHex(hash(body, "k")))
                    .as(body)
                    .isEqualTo(firstVersionHash(json.readTree(body)));
        }
    }

    private static Object randomValue(SplittableRandom random, int depth, boolean object) {
        int kind = object ? 5 : random.nextInt(depth > 3 ? 5 : 7);
        return switch (kind) {
            case 0 -> randomText(random);
            case 1 -> random.nextBoolean() ? (Object) random.nextLong() : (Object) random.nextInt(-1000, 1000);
            case 2 -> new java.math.BigInteger(random.nextInt(1, 200), new java.util.Random(random.nextLong()));
            case 3 -> random.nextBoolean();
            case 4 -> null;
            case 5 -> {
                Map<String, Object> map = new java.util.LinkedHashMap<>();
                int n = random.nextInt(0, 6);
                for (int j = 0; j < n; j++) {
                    map.put(randomText(random), randomValue(random, depth + 1, false));
                }
                yield map;
            }
            default -> {
                List<Object> list = new ArrayList<>();
                int n = random.nextInt(0, 5);
                for (int j = 0; j < n; j++) {
                    list.add(randomValue(random, depth + 1, false));
                }
                yield list;
            }
        };
    }

    private static String randomText(SplittableRandom random) {
        String alphabet = "aZ09 \"\\/\t\n\r\u0001\u001f\u007fé中😀\u2028\uFEFF'%_{}[]:,";
        StringBuilder s = new StringBuilder();
        int n = random.nextInt(0, 12);
        for (int i = 0; i < n; i++) {
            s.appendCodePoint(alphabet.codePointAt(
                    alphabet.offsetByCodePoints(0, random.nextInt(alphabet.codePointCount(0, alphabet.length())))));
        }
        return s.toString();
    }

    /** The first version's hash, as it was written (a sorted map of the metadata through databind). */
    private static String firstVersionHash(JsonNode node) throws Exception {
        ObjectMapper canonical = new ObjectMapper().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator out = canonical.getFactory().createGenerator(bytes)) {
            out.writeStartObject();
            out.writeStringField("body", node.get("body").textValue());
            out.writeNullField("gateway");
            out.writeFieldName("metadata");
            canonical.writeValue(out, canonical.convertValue(node.get("metadata"), Map.class));
            out.writeStringField("reference", node.get("reference").textValue());
            out.writeStringField("to", node.get("to").textValue());
            out.writeEndObject();
        }
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes.toByteArray()));
    }
}
