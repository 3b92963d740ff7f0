import RidegateTestSupport
import Testing

/// CI sets `RIDEGATE_REQUIRE_FIXTURES=1`: there a missing reference corpus fails here, once and by name, rather
/// than passing by skipping every test that reads it.
@Suite struct ReferenceCorpusTests {
    @Test("The reference corpus is there when it is required")
    func presentWhenRequired() {
        guard Fixtures.isRequired else { return }
        #expect(Fixtures.isPresent, "RIDEGATE_REQUIRE_FIXTURES=1 but there is no directory at \(Fixtures.root): set RIDEGATE_FIXTURES")
    }
}
