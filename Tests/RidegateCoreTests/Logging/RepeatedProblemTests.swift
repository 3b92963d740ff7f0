import RidegateCore
import Testing

@Suite struct RepeatedProblemTests {
    @Test("Said the first time, then once a minute with the count held back")
    func rateLimited() {
        var problem = RepeatedProblem(interval: 60)
        #expect(problem.occurred(at: 0) == 1)
        #expect(problem.occurred(at: 1) == nil && problem.occurred(at: 30) == nil)
        #expect(problem.occurred(at: 61) == 3)
        #expect(problem.occurred(at: 62) == nil)
        #expect(problem.total == 5)
    }
}
