package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How a refused URL loses its user info before a denial row holds it, in every form a client would read as user info. */
class HttpRequestKindUserInfoTest {
    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', value = {
            "http://u:p@h:8/x?a=b@c   | http://h:8/x?a=b@c",
            "http://p@h/x             | http://h/x",
            "http://a@b:p@h/x         | http://h/x",
            "https://u:p w@h/x        | https://h/x",
            "http:u:p@h/x             | http:h/x",
            "HTTPS:\\\\u:p@h\\x       | HTTPS:\\\\h\\x",
            "'  http://u:p@h/x'       | '  http://h/x'",
            "ftp://u:p@h/x            | ftp://h/x",
            "git+ssh://u:p@h/x        | git+ssh://h/x",
            "//u:p@h/x                | //h/x",
            "u:p@h/x                  | h/x",
            "http://h/users/@me       | http://h/users/@me",
            "http://h?u:p@x           | http://h?u:p@x",
            "mailto:p@h               | h",
            "''                       | ''",
    })
    void userInfoIsDroppedWhereverAClientWouldReadIt(String url, String expected) {
        assertEquals(expected, HttpRequestKind.withoutUserInfo(url));
    }
}
