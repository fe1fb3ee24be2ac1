package dev.postern.protocol.approval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which capabilities declare form elicitation (an {@code elicitation} object with {@code form}, or
 * with neither {@code form} nor {@code url}: the 2025-06-18 shape) and when a stateless call is a
 * first call (it carries back neither responses nor a state).
 */
class ApprovalRouteTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"elicitation\":{\"form\":{}}}                | true",
        "{\"elicitation\":{}}                           | true",
        "{\"elicitation\":{\"form\":{},\"url\":{}}}     | true",
        "{\"elicitation\":{\"url\":{}}}                 | false",
        "{\"elicitation\":{\"form\":true}}              | false",
        "{\"elicitation\":true}                         | false",
        "{\"sampling\":{}}                              | false",
        "{}                                             | false"})
    void formElicitationIsDeclaredOnlyByAnElicitationObjectWithFormOrWithNeitherMode(String capabilities, boolean declared) throws Exception {
        assertEquals(declared, ApprovalRoute.formElicitation(JSON.readTree(capabilities)), capabilities);
    }

    @Test
    void noCapabilitiesDeclareNothing() {
        assertFalse(ApprovalRoute.formElicitation(null));
    }

    @Test
    void aStatelessCallIsAFirstCallOnlyWhenItCarriesNothingBack() {
        assertTrue(new ApprovalRoute.Stateless(true, Optional.empty(), Optional.empty()).first());
        assertFalse(new ApprovalRoute.Stateless(true, Optional.empty(), Optional.of("abc.def")).first());
        assertFalse(new ApprovalRoute.Stateless(true, Optional.of(JSON.createObjectNode()), Optional.empty()).first());
        assertFalse(new ApprovalRoute.Stateless(true, Optional.of(JSON.createObjectNode()), Optional.of("abc.def")).first());
    }
}
