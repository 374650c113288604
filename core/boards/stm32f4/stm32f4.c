/* STM32F4 clocks, GPIO, USART and timers for the boards of this family. */
#include "stm32f4.h"

#define RCC_CR (*(volatile uint32_t *)0x40023800u)
#define RCC_PLLCFGR (*(volatile uint32_t *)0x40023804u)
#define RCC_CFGR (*(volatile uint32_t *)0x40023808u)
#define RCC_AHB1ENR (*(volatile uint32_t *)0x40023830u)
#define FLASH_ACR (*(volatile uint32_t *)0x40023C00u)
#define CR_HSION (1u << 0)
#define CR_HSIRDY (1u << 1)
#define CR_HSEON (1u << 16)
#define CR_HSERDY (1u << 17)
#define CR_HSEBYP (1u << 18)
#define CR_PLLON (1u << 24)
#define CR_PLLRDY (1u << 25)
#define CFGR_SW_PLL 2u
#define CFGR_SWS_PLL (2u << 2)
#define CFGR_SWS_MASK (3u << 2)
#define ACR_PRFTEN (1u << 8)
#define ACR_ICEN (1u << 9)
#define ACR_DCEN (1u << 10)
#define WAIT_POLLS 2000000u
#define HSI_HZ 16000000u

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYST_ENABLE_CORE_CLOCK ((1u << 0) | (1u << 2))
#define SYST_COUNTFLAG (1u << 16)

static uint32_t core_hz = HSI_HZ, apb1_hz = HSI_HZ, apb2_hz = HSI_HZ;
static bool rcc_absent;

static bool wait_for(volatile uint32_t *reg, uint32_t mask, uint32_t value)
{
    for (uint32_t i = 0; i < WAIT_POLLS; i++)
        if ((*reg & mask) == value)
            return true;
    return false;
}

/* APB prescaler field for a divider: 0xx undivided, 100 /2 ... 111 /16. */
static uint32_t ppre(uint32_t div)
{
    uint32_t bits = 0;
    for (uint32_t d = div; d > 1; d >>= 1)
        bits++;
    return bits ? 4u | (bits - 1u) : 0u;
}

uint32_t stm32f4_clocks_setup(const struct stm32f4_clocks *c, const char **how)
{
    uint32_t src_hz = c->hse_hz ? c->hse_hz : HSI_HZ;
    uint32_t pll_hz = src_hz / c->pll_m * c->pll_n / c->pll_p;
    if (!(RCC_CR & CR_HSIRDY)) {
        /* Every part comes out of reset on HSI, ready: this RCC is not there. */
        *how = "the clock tree as configured (this RCC is not modelled: an emulator)";
        rcc_absent = true;
        core_hz = pll_hz;
        apb1_hz = pll_hz / c->apb1_div;
        apb2_hz = pll_hz / c->apb2_div;
        return core_hz;
    }
    RCC_CR |= CR_HSION;
    uint32_t pllsrc = 0;
    if (c->hse_hz) {
        RCC_CR |= CR_HSEON | (c->hse_bypass ? CR_HSEBYP : 0u);
        if (!wait_for(&RCC_CR, CR_HSERDY, CR_HSERDY)) {
            RCC_CR &= ~(CR_HSEON | CR_HSEBYP);
            *how = "HSI 16 MHz: the external clock did not start";
            return core_hz;
        }
        pllsrc = 1u << 22;
    }
    RCC_CR &= ~CR_PLLON;
    RCC_PLLCFGR = c->pll_m | (c->pll_n << 6) | (((c->pll_p / 2u) - 1u) << 16) | pllsrc |
                  (c->pll_q << 24);
    RCC_CR |= CR_PLLON;
    if (!wait_for(&RCC_CR, CR_PLLRDY, CR_PLLRDY)) {
        *how = "HSI 16 MHz: the PLL did not lock";
        return core_hz;
    }
    FLASH_ACR = c->flash_wait_states | ACR_PRFTEN | ACR_ICEN | ACR_DCEN;
    RCC_CFGR = (ppre(c->apb1_div) << 10) | (ppre(c->apb2_div) << 13);
    RCC_CFGR |= CFGR_SW_PLL;
    if (!wait_for(&RCC_CFGR, CFGR_SWS_MASK, CFGR_SWS_PLL)) {
        *how = "HSI 16 MHz: the switch to the PLL did not happen";
        return core_hz;
    }
    core_hz = pll_hz;
    apb1_hz = pll_hz / c->apb1_div;
    apb2_hz = pll_hz / c->apb2_div;
    *how = c->hse_hz ? "PLL from the external clock" : "PLL from HSI";
    return core_hz;
}

bool stm32f4_emulated(void) { return rcc_absent; }
uint32_t stm32f4_apb1_hz(void) { return apb1_hz; }
uint32_t stm32f4_apb2_hz(void) { return apb2_hz; }

void stm32f4_gpioa_af(unsigned pin, unsigned af)
{
    RCC_AHB1ENR |= 1u << 0; /* GPIOA */
    struct stm32_gpio *g = STM32_GPIOA;
    g->moder = (g->moder & ~(3u << (2 * pin))) | (2u << (2 * pin));
    g->afr[pin / 8] = (g->afr[pin / 8] & ~(0xFu << (4 * (pin % 8)))) | (af << (4 * (pin % 8)));
}

#define USART_SR_RXNE (1u << 5)
#define USART_SR_TXE (1u << 7)
#define USART_CR1_UE (1u << 13)
#define USART_CR1_TE (1u << 3)
#define USART_CR1_RE (1u << 2)

void stm32f4_usart_init(struct stm32_usart *u, uint32_t pclk, uint32_t baud)
{
    u->cr1 = 0;
    u->brr = (pclk + baud / 2u) / baud; /* 16x oversampling: BRR is pclk / baud */
    u->cr1 = USART_CR1_UE | USART_CR1_TE | USART_CR1_RE;
}

void stm32f4_usart_write(struct stm32_usart *u, const char *p, unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) {
        while (!(u->sr & USART_SR_TXE))
            ;
        u->dr = (uint8_t)p[i];
    }
}

int stm32f4_usart_getc(struct stm32_usart *u)
{
    if (!(u->sr & USART_SR_RXNE))
        return -1;
    return (int)(u->dr & 0xFFu);
}

/* Counts over the second of two SysTick periods: reading the timer the
 * same few cycles after each wrap, the start's offset cancels out. */
uint32_t stm32f4_measure_timer_hz(struct stm32_tim *t, uint32_t hz_core)
{
    t->cr1 = 0;
    t->psc = 0;
    t->arr = 0xFFFFFFFFu;
    t->egr = 1; /* load the prescaler */
    t->cnt = 0;
    SYST_CSR = 0;
    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0;
    t->cr1 = 1;
    SYST_CSR = SYST_ENABLE_CORE_CLOCK;
    uint32_t at[2];
    for (int i = 0; i < 2; i++) {
        while (!(SYST_CSR & SYST_COUNTFLAG)) /* reading it clears it */
            ;
        at[i] = t->cnt;
    }
    SYST_CSR = 0;
    t->cr1 = 0;
    uint64_t hz = (uint64_t)(at[1] - at[0]) * hz_core / (1u << 24);
    return (uint32_t)((hz + 500u) / 1000u * 1000u);
}
