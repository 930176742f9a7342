package dev.sendlog.service.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.jackson.Jackson;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The request hash is stored with every idempotency key for a day and compared on each replay, so a new version
 * must compute the same bytes for the same request as the one before it; otherwise a client's retry across an
 * upgrade would get 409 instead of its message. These vectors were computed by the first implementation
 * (canonical JSON of the content with keys sorted at every level, SHA-256): the first is the SHA-256 of
 * {@code {"body":"Hello","gateway":null,"metadata":null,"reference":null,"to":"+4915112345678"}}.
 */
class RequestHashTest {
    private final SubmitParser parser = new SubmitParser(Set.of("sim", "smpp"), "sim");

    private record Vector(String body, String sha256) {
    }

    private static final List<Vector> VECTORS = List.of(
            new Vector("{\"to\":\"+4915112345678\",\"body\":\"Hello\"}",
                    "313f9c02e3ae6badac14122423ba6a1165de8350687b3ab20d4eb6e1ddb8cfc4"),
            new Vector("{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"order-1\",\"gateway\":\"smpp\"}",
                    "93de5f4e90c056cb0203f606ce49c5d0efd43f4cc6e84d5ed5932923e15d8bdb"),
            new Vector("{\"gateway\":null,\"body\":\"Hello\",\"to\":\"+4915112345678\",\"reference\":\"\"}",
                    "9523cef8e3a2fadd97ad3a4a9990756380650a33c5a2e70de29ea5fb529eb315"),
            new Vector("{\"to\":\"+4915112345678\",\"body\":\"quote \\\" backslash \\\\ tab \\t line \\n \\u2028 é 😀 \\u0001\","
                    + "\"metadata\":null}",
                    "c8c39f4db4105953a6e659626a1d2d69dd46860f4ebf04bf88058c89c753e4b6"),
            new Vector("{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"metadata\":{}}",
                    "823a714c75b0ad7f901a97d643b40cf58207b694ebe66237b38813f9567f71c3"),
            new Vector("{\"metadata\":{\"z\":{\"y\":[1,2.5,-0.0,1e10,\"x\",{\"k\":true,\"c\":null}],\"b\":\"é\\\"\"},"
                    + "\"a\":12345678901234,\"big\":123456789012345678901234567890,\"m\":[]},"
                    + "\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\"}",
                    "fdeb23e9c2e38caa15c110377981de99ca037d756313c3d027faea413d8d477f"));

    @Test
    void aRequestHashesToTheSameBytesAsInTheFirstVersion() throws Exception {
        for (ObjectMapper json : List.of(new ObjectMapper(), Jackson.newObjectMapper())) {
            for (Vector v : VECTORS) {
                byte[] hash = parser.single(json.readTree(v.body()), "key").requestHash();
                assertThat(HexFormat.of().formatHex(hash)).as(v.body()).isEqualTo(v.sha256());
            }
        }
    }

    @Test
    void theHashSeesEveryPartOfTheContentButNotTheKeyOrTheFieldOrder() throws Exception {
        ObjectMapper json = new ObjectMapper();
        String base = "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\",\"metadata\":{\"a\":1,\"b\":[1,2]}}";
        byte[] hash = parser.single(json.readTree(base), "one").requestHash();
        assertThat(parser.single(json.readTree(base), "two").requestHash()).isEqualTo(hash);
        assertThat(parser.single(json.readTree(
                "{\"metadata\":{\"b\":[1,2],\"a\":1},\"reference\":\"r\",\"body\":\"Hello\",\"to\":\"+4915112345678\"}"),
                "one").requestHash()).isEqualTo(hash);
        for (String changed : List.of(
                "{\"to\":\"+4915112345679\",\"body\":\"Hello\",\"reference\":\"r\",\"metadata\":{\"a\":1,\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello!\",\"reference\":\"r\",\"metadata\":{\"a\":1,\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"s\",\"metadata\":{\"a\":1,\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"metadata\":{\"a\":1,\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\",\"metadata\":{\"a\":1,\"b\":[2,1]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\",\"metadata\":{\"a\":2,\"b\":[1,2]}}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\"}",
                "{\"to\":\"+4915112345678\",\"body\":\"Hello\",\"reference\":\"r\",\"gateway\":\"smpp\","
                        + "\"metadata\":{\"a\":1,\"b\":[1,2]}}")) {
            assertThat(parser.single(json.readTree(changed), "one").requestHash()).as(changed).isNotEqualTo(hash);
        }
    }
}
